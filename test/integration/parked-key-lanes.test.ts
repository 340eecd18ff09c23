import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { throttledSqs } from '../helpers/failing-commands.js';
import { type LaneExecutor, setupLaneExecutor } from '../helpers/lane-executor.js';

const schema = z.object({ name: z.string() });
const handler = ({ name }: { name: string }) => {
  if (name.startsWith('broken')) throw new PermanentError(`${name} fails`);
};
const retry = { maxAttempts: 1 };
const inDefault = defineTask('ledger-default', { schema, handler, retry, onDead: 'park' });
const inBulk = defineTask('ledger-bulk', { schema, handler, retry, onDead: 'park', lane: 'bulk' });
const types = [inDefault, inBulk];

let executor: LaneExecutor;

beforeAll(async () => {
  executor = await setupLaneExecutor();
});

/** Parks `key` in both lanes: a broken task and a later one in each. */
async function parkInBothLanes(key: string) {
  const client = executor.client();
  for (const [task, lane] of [
    [inDefault, 'default'],
    [inBulk, 'bulk'],
  ] as const) {
    await client.enqueue(
      task,
      { name: 'broken' },
      { id: `${key}-broken-${lane}`, orderingKey: key },
    );
    await client.enqueue(task, { name: 'next' }, { id: `${key}-next-${lane}`, orderingKey: key });
  }
  await executor.runLane('default', types);
  await executor.runLane('bulk', types);
}

const statusOf = async (id: string) => (await executor.client().get(id))?.status;

describe('parked keys in lanes', () => {
  it('lists a key parked in two lanes once per lane', async () => {
    await parkInBothLanes('acct-1');

    const parked = await executor.client().parkedKeys();

    const mine = parked.filter((p) => p.orderingKey === 'acct-1');
    expect(mine.map((p) => [p.lane, p.task.id]).sort()).toEqual([
      [undefined, 'acct-1-broken-default'],
      ['bulk', 'acct-1-broken-bulk'],
    ]);
  });

  it('releaseKey releases the key in every lane it is parked in', async () => {
    await parkInBothLanes('acct-2');

    const released = await executor.client().releaseKey('acct-2');
    for (let i = 0; i < 2; i++) {
      await executor.runLane('default', types);
      await executor.runLane('bulk', types);
    }

    expect(released.released).toBe(true);
    expect([...released.taskIds].sort()).toEqual(['acct-2-broken-bulk', 'acct-2-broken-default']);
    expect(await statusOf('acct-2-next-default')).toBe(TaskStatus.SUCCEEDED);
    expect(await statusOf('acct-2-next-bulk')).toBe(TaskStatus.SUCCEEDED);
  });

  it('releaseKey with a lane releases the key in that lane only', async () => {
    await parkInBothLanes('acct-3');

    const released = await executor.client().releaseKey('acct-3', { lane: 'bulk' });
    await executor.runLane('bulk', types);
    await executor.runLane('default', types);

    expect(released.taskIds).toEqual(['acct-3-broken-bulk']);
    expect(await statusOf('acct-3-next-bulk')).toBe(TaskStatus.SUCCEEDED);
    expect(await statusOf('acct-3-next-default')).toBe(TaskStatus.PENDING);
    const parked = await executor.client().parkedKeys();
    expect(parked.filter((p) => p.orderingKey === 'acct-3').map((p) => p.task.id)).toEqual([
      'acct-3-broken-default',
    ]);
  });

  it('the sweeper sends an unsent task of a key parked in another lane only', async () => {
    const client = executor.client();
    await client.enqueue(
      inDefault,
      { name: 'broken' },
      { id: 'acct-4-broken', orderingKey: 'acct-4' },
    );
    await executor.runLane('default', types);
    const unsent = await executor
      .client({ sqs: throttledSqs() })
      .enqueue(inBulk, { name: 'late' }, { id: 'acct-4-late', orderingKey: 'acct-4' });

    await executor.sweeper({ pendingAgeMs: 0 }).run();
    await executor.runLane('bulk', types);

    expect(unsent.sent).toBe(false);
    expect(await statusOf('acct-4-late')).toBe(TaskStatus.SUCCEEDED);
  });

  it('reads a park item written before lanes as the default lane', async () => {
    const client = executor.client();
    await client.enqueue(
      inDefault,
      { name: 'broken' },
      { id: 'acct-5-broken', orderingKey: 'acct-5' },
    );
    await executor.runLane('default', types);
    // The item as an older worker wrote it: no lane.
    const doc = DynamoDBDocumentClient.from(executor.clients.dynamodb);
    const Key = { pk: 'parked-key acct-5' };
    const TableName = executor.location.tableName;
    const held = await doc.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
    const { lane, ...legacy } = held.Item ?? {};
    await doc.send(new PutCommand({ TableName, Item: legacy }));

    const parked = await client.parkedKeys();
    const released = await client.releaseKey('acct-5');

    expect(lane).toBe('default');
    expect(parked.filter((p) => p.orderingKey === 'acct-5').map((p) => p.lane)).toEqual([
      undefined,
    ]);
    expect(released.taskIds).toEqual(['acct-5-broken']);
  });
});
