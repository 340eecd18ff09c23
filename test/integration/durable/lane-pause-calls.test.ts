/**
 * What a lane's pause, resume and states call, recorded on the emulator: exactly the actions
 * `TaskExecutor.grantPauseLanes` gives (test/infra/grant-pause-lanes.test.ts), and table
 * calls only on the lane's control item, which its `dynamodb:LeadingKeys` condition allows.
 * The Lambda API is a recording double, as in lane-mappings.test.ts.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { LaneMappings } from '../../../src/client/lane-mappings.js';
import { laneStates, pauseLane, resumeLane } from '../../../src/client/lane-pause.js';
import { TableSchema } from '../../../src/core/constants.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { DEFAULT_LANE, LaneQueues } from '../../../src/settings/lanes.js';
import { laneControlKey } from '../../../src/store/lane-control-key.js';
import { TaskStore } from '../../../src/store/task-store.js';
import { testClients } from '../../helpers/aws.js';
import { setupExecutor } from '../../helpers/executor.js';

/** The partition keys a DynamoDB request names (its Key, or its batch's Keys). */
function keysOf(input: unknown): string[] {
  const idOf = (key: unknown): string[] => {
    const id = (key as Record<string, unknown> | undefined)?.[TableSchema.PARTITION_KEY];
    if (typeof id === 'string') return [id];
    const s = (id as { S?: unknown } | undefined)?.S;
    return typeof s === 'string' ? [s] : [];
  };
  const request = input as { Key?: unknown; RequestItems?: Record<string, { Keys?: unknown[] }> };
  return [
    ...idOf(request.Key),
    ...Object.values(request.RequestItems ?? {}).flatMap((t) => (t.Keys ?? []).flatMap(idOf)),
  ];
}

/** Records each call of `client` as `service:Action`, and the table keys it names. */
function record(
  stack: { add: DynamoDBClient['middlewareStack']['add'] },
  service: string,
  calls: string[],
  keys: Set<string>,
): void {
  stack.add(
    (next, context) => async (args) => {
      calls.push(`${service}:${String(context.commandName).replace(/Command$/, '')}`);
      for (const key of keysOf(args.input)) keys.add(key);
      return next(args);
    },
    { step: 'initialize', name: 'recordCalls' },
  );
}

describe('pauseLane, resumeLane and laneStates: the calls they make', () => {
  it('call only UpdateItem and BatchGetItem of the lane’s control item, GetQueueAttributes, and the two Lambda actions', async () => {
    const executor = await setupExecutor();
    const calls: string[] = [];
    const keys = new Set<string>();
    const clients = testClients();
    record(clients.dynamodb.middlewareStack, 'dynamodb', calls, keys);
    record(
      clients.sqs.middlewareStack as unknown as DynamoDBClient['middlewareStack'],
      'sqs',
      calls,
      keys,
    );
    const mappings: LaneMappings = {
      find: async () => {
        calls.push('lambda:ListEventSourceMappings');
        return [{ uuid: 'm-worker', state: 'Enabled' }];
      },
      setEnabled: async () => {
        calls.push('lambda:UpdateEventSourceMapping');
      },
    };
    const deps = {
      store: new TaskStore({
        tableName: executor.tableName,
        dynamodb: clients.dynamodb,
        logger: silentLogger,
      }),
      // The queue's URL only, as a client without the stack's ARN output: the ARN is looked up.
      lanes: new LaneQueues({ queueUrl: executor.queueUrl }),
      sqs: clients.sqs,
      mappings: () => mappings,
      logger: silentLogger,
      clock: Date.now,
      principal: async () => 'arn:aws:sts::000000000000:assumed-role/Ops/alice',
    };

    await laneStates(undefined, deps);
    const paused = await pauseLane(DEFAULT_LANE, { reason: 'calls' }, deps);
    const resumed = await resumeLane(DEFAULT_LANE, {}, deps);

    expect(paused).toMatchObject({ changed: true, switchedMappings: ['m-worker'] });
    expect(resumed).toMatchObject({ changed: true, switchedMappings: ['m-worker'] });
    expect([...new Set(calls)].sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:UpdateItem',
      'lambda:ListEventSourceMappings',
      'lambda:UpdateEventSourceMapping',
      'sqs:GetQueueAttributes',
    ]);
    expect([...keys]).toEqual([laneControlKey(DEFAULT_LANE)]);
  });
});
