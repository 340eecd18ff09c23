/**
 * The console's lane pause: parsing its form, and what its outcome says for each of the
 * client's answers (the client itself is tested against the emulator in
 * test/integration/console-lane-pause.test.ts; here a stand-in answers as it would).
 */
import { describe, expect, it } from 'vitest';
import { parseAction } from '../../../../packages/cli/src/console/actions.js';
import {
  CONSOLE_LANE_PAUSE_REASON,
  type LaneClient,
  lambdaMissing,
  performLane,
} from '../../../../packages/cli/src/console/lane-actions.js';
import type { LanePauseResult } from '../../../../src/client/lane-pause.js';
import { ConfigurationError } from '../../../../src/core/errors.js';
import { UnknownLaneError } from '../../../../src/settings/lanes.js';

function result(over: Partial<LanePauseResult>): LanePauseResult {
  return {
    lane: 'bulk',
    paused: true,
    changedAt: 1_700_000_000_000,
    principal: 'arn:aws:iam::1:user/alice',
    reason: CONSOLE_LANE_PAUSE_REASON,
    mappings: [],
    changed: true,
    switchedMappings: [],
    ...over,
  };
}

const missingLambda = new ConfigurationError('install @aws-sdk/client-lambda', {
  cause: Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' }),
});

describe('parseAction for lanes', () => {
  it('reads the lane and an optional reason, and names what is missing or too long', () => {
    const fields = (f: Record<string, string[]>) => (n: string) => f[n] ?? [];

    expect(parseAction('pause-lane', fields({ lane: [' bulk '], reason: [' deploy '] }))).toEqual({
      action: { kind: 'pause-lane', lane: 'bulk', reason: 'deploy' },
    });
    expect(parseAction('resume-lane', fields({ lane: ['bulk'], reason: ['x'] }))).toEqual({
      action: { kind: 'resume-lane', lane: 'bulk' },
    });
    expect(parseAction('pause-lane', fields({ reason: ['r'.repeat(201)] }))).toEqual({
      problems: [
        'name the lane (field "lane"); none was given',
        'a reason of at most 200 characters is accepted; received 201',
      ],
    });
  });
});

describe('performLane', () => {
  it('says which mappings a pause disabled, and that one with none is recorded only', async () => {
    const calls: unknown[] = [];
    const client = (out: LanePauseResult): LaneClient => ({
      pauseLane: async (lane, options) => {
        calls.push([lane, options]);
        return out;
      },
      resumeLane: async () => out,
    });

    const disabled = await performLane(client(result({ switchedMappings: ['m-1'] })), {
      kind: 'pause-lane',
      lane: 'bulk',
    });
    const none = await performLane(client(result({})), { kind: 'pause-lane', lane: 'bulk' });

    expect(calls[0]).toEqual(['bulk', { reason: CONSOLE_LANE_PAUSE_REASON }]);
    expect(disabled).toMatchObject({ title: 'Paused lane bulk', failed: false });
    expect(disabled.lines[0]).toContain('Disabled the Lambda event source mapping(s) m-1');
    expect(none.lines[0]).toContain('The pause is recorded only: no Lambda event source mapping');
  });

  it('records the pause only when the Lambda SDK cannot be loaded, and says a Lambda worker keeps receiving', async () => {
    const calls: unknown[] = [];
    const client: LaneClient = {
      pauseLane: async (lane, options) => {
        calls.push(options);
        if (options?.mappings !== false) throw missingLambda;
        return result({ lane });
      },
      resumeLane: async () => {
        throw missingLambda;
      },
    };

    const out = await performLane(client, { kind: 'pause-lane', lane: 'bulk', reason: 'r' });
    const resume = performLane(client, { kind: 'resume-lane', lane: 'bulk' });

    expect(calls).toEqual([{ reason: 'r' }, { reason: 'r', mappings: false }]);
    expect(out.failed).toBe(false);
    expect(out.lines[0]).toContain('@aws-sdk/client-lambda could not be loaded');
    expect(out.lines[0]).toContain('a Lambda worker keeps receiving');
    // A resume never records itself without enabling what the pause disabled.
    expect(await resume).toMatchObject({
      title: 'The resume of lane bulk failed',
      lines: [
        'CONFIGURATION: install @aws-sdk/client-lambda',
        'The lane stays paused until its mappings are enabled and the resume recorded: resuming it again is safe.',
      ],
      failed: true,
    });
  });

  it('says changed or not, and refuses an unknown lane naming the lanes', async () => {
    const client: LaneClient = {
      pauseLane: async () => result({ changed: false }),
      resumeLane: async (lane) => {
        if (lane === 'nope') throw new UnknownLaneError('nope', ['default', 'bulk'], 'resumeLane');
        return result({ paused: false, changed: false });
      },
    };

    const again = await performLane(client, { kind: 'pause-lane', lane: 'bulk' });
    const running = await performLane(client, { kind: 'resume-lane', lane: 'bulk' });
    const unknown = await performLane(client, { kind: 'resume-lane', lane: 'nope' });

    expect(again).toMatchObject({ title: 'Lane bulk was already paused', failed: false });
    expect(running).toMatchObject({ title: 'Lane bulk was already running', failed: false });
    expect(unknown).toEqual({
      title: 'No lane is named "nope"',
      lines: ["Nothing was resumed: the executor's lanes are default, bulk."],
      ids: [],
      failed: true,
    });
    expect(lambdaMissing(missingLambda)).toBe(true);
    expect(lambdaMissing(new ConfigurationError('access denied'))).toBe(false);
  });
});
