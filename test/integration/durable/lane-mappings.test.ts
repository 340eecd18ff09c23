/**
 * A lane's Lambda event source mappings through a pause and a resume: the pause records and
 * disables the mappings that poll, the resume enables exactly those, and a failed enable
 * leaves the lane paused. The table is the emulator's; the Lambda API is a recording double
 * (moto runs an enabled mapping's function in Docker, which the tests cannot).
 */
import { describe, expect, it } from 'vitest';
import type { LaneMapping, LaneMappings } from '../../../src/client/lane-mappings.js';
import { pauseLane, resumeLane } from '../../../src/client/lane-pause.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { LaneQueues } from '../../../src/settings/lanes.js';
import { setupExecutor } from '../../helpers/executor.js';

function recordingMappings(initial: LaneMapping[]) {
  const states = new Map(initial.map((m) => [m.uuid, m.state]));
  const calls: string[] = [];
  let failEnable = false;
  const mappings: LaneMappings = {
    find: async () => [...states].map(([uuid, state]) => ({ uuid, state })),
    setEnabled: async (uuid, enabled) => {
      if (enabled && failEnable) throw new Error('Lambda is down');
      calls.push(`${enabled ? 'enable' : 'disable'} ${uuid}`);
      states.set(uuid, enabled ? 'Enabled' : 'Disabled');
    },
  };
  return { mappings, calls, states, failEnables: (on: boolean) => (failEnable = on) };
}

describe('pauseLane and resumeLane with event source mappings', () => {
  it('disables the polling mappings, enables exactly those again, and stays paused when an enable fails', async () => {
    const executor = await setupExecutor();
    const lambda = recordingMappings([
      { uuid: 'm-worker', state: 'Enabled' },
      { uuid: 'm-off', state: 'Disabled' },
    ]);
    const deps = {
      store: executor.store,
      lanes: new LaneQueues({ queueUrl: executor.queueUrl, queueArn: executor.queueArn }),
      sqs: executor.clients.sqs,
      mappings: () => lambda.mappings,
      logger: silentLogger,
      clock: Date.now,
      principal: async () => 'arn:aws:sts::000000000000:assumed-role/Ops/alice',
    };

    const paused = await pauseLane('default', { reason: 'r' }, deps);
    lambda.failEnables(true);
    const failed = await resumeLane('default', {}, deps).catch((err: unknown) => err);
    const [stillPaused] = await executor.client().laneStates(['default']);
    lambda.failEnables(false);
    const resumed = await resumeLane('default', {}, deps);

    expect(paused).toMatchObject({
      paused: true,
      changed: true,
      mappings: ['m-worker'],
      switchedMappings: ['m-worker'],
      principal: 'arn:aws:sts::000000000000:assumed-role/Ops/alice',
    });
    expect(failed).toBeInstanceOf(Error);
    expect(stillPaused).toMatchObject({ paused: true, mappings: ['m-worker'] });
    expect(resumed).toMatchObject({ paused: false, changed: true, switchedMappings: ['m-worker'] });
    expect(lambda.calls).toEqual(['disable m-worker', 'enable m-worker']);
    expect(lambda.states.get('m-off')).toBe('Disabled');
  });
});
