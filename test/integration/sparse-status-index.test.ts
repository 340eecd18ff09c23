/**
 * The sparse status index (docs/adr/0021-sparse-status-index.md): only the statuses in
 * INDEXED_STATUSES carry its keys, every status can still be counted and listed, and the
 * shard count is one setting that producers, workers and the sweeper share.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { statusShard } from '../../src/store/record.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, silentLogger, type TestExecutor } from '../helpers/executor.js';

const email = defineTask('email', { schema: z.object({ n: z.number() }), handler: () => 'sent' });
const doomed = defineTask('doomed', {
  schema: z.object({ n: z.number() }),
  handler: () => {
    throw new PermanentError('bad input');
  },
});

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** The stored item's index keys, as DynamoDB holds them. */
async function indexKeys(id: string): Promise<{ statusShard?: unknown; statusAt?: unknown }> {
  const doc = DynamoDBDocumentClient.from(executor.clients.dynamodb);
  const out = await doc.send(
    new GetCommand({ TableName: executor.tableName, Key: { pk: id }, ConsistentRead: true }),
  );
  const item = out.Item ?? {};
  return {
    ...('statusShard' in item ? { statusShard: item.statusShard } : {}),
    ...('statusAt' in item ? { statusAt: item.statusAt } : {}),
  };
}

/** One task in each of PENDING, SUCCEEDED, DEAD and CANCELLED. */
async function seedStatuses(): Promise<
  Record<'pending' | 'succeeded' | 'dead' | 'cancelled', string>
> {
  const client = executor.client();
  const { id: succeeded } = await client.enqueue(email, { n: 1 });
  const { id: dead } = await client.enqueue(doomed, { n: 2 });
  await executor.deliver(executor.worker([email, doomed]), await executor.receive());
  const { id: pending } = await client.enqueue(email, { n: 3 });
  const { id: cancelled } = await client.enqueue(email, { n: 4 });
  await client.cancel(cancelled);
  return { pending, succeeded, dead, cancelled };
}

describe('the sparse status index', () => {
  it('keys a record only while it is in a status the sweeper or operators act on', async () => {
    const ids = await seedStatuses();

    const pending = await indexKeys(ids.pending);
    const dead = await indexKeys(ids.dead);
    const succeeded = await indexKeys(ids.succeeded);
    const cancelled = await indexKeys(ids.cancelled);

    expect(pending).toEqual({
      statusShard: `PENDING#${statusShard(ids.pending, 8)}`,
      statusAt: expect.any(Number),
    });
    expect(dead).toEqual({
      statusShard: `DEAD#${statusShard(ids.dead, 8)}`,
      statusAt: expect.any(Number),
    });
    expect(succeeded).toEqual({});
    expect(cancelled).toEqual({});
  });

  it('counts and lists every status, keyed or not, and says which it scanned', async () => {
    const ids = await seedStatuses();
    const client = executor.client();

    const counts = await client.counts();
    const indexedOnly = await client.counts({ scan: false });
    const listed = await Promise.all(
      [TaskStatus.PENDING, TaskStatus.SUCCEEDED, TaskStatus.DEAD, TaskStatus.CANCELLED].map(
        async (status) => (await client.list({ status })).items.map((r) => r.id),
      ),
    );
    const byStore = await client.listByStatus(TaskStatus.SUCCEEDED);

    expect(counts.byStatus).toEqual({
      WAITING: 0,
      SCHEDULED: 0,
      PENDING: 1,
      QUEUED: 0,
      RUNNING: 0,
      SUSPENDED: 0,
      PAUSED: 0,
      SUCCEEDED: 1,
      DEAD: 1,
      CANCELLED: 1,
      ROLLED_BACK: 0,
    });
    expect(counts.scanned).toEqual(['RUNNING', 'SUCCEEDED', 'CANCELLED', 'ROLLED_BACK']);
    expect(indexedOnly.byStatus).toEqual({
      WAITING: 0,
      SCHEDULED: 0,
      PENDING: 1,
      QUEUED: 0,
      // Keyed: a suspended task's wake may be lost, a paused one waits for an operator (ADR 0048).
      SUSPENDED: 0,
      PAUSED: 0,
      DEAD: 1,
    });
    // RUNNING is not keyed (ADR 0052): named as not counted, never a silent 0.
    expect(indexedOnly.notCounted).toEqual(['RUNNING', 'SUCCEEDED', 'CANCELLED', 'ROLLED_BACK']);
    expect(listed).toEqual([[ids.pending], [ids.succeeded], [ids.dead], [ids.cancelled]]);
    expect(byStore.items.map((r) => r.id)).toEqual([ids.succeeded]);
  });
});

function sweeperWith(env: string | undefined) {
  const previous = process.env.TASKLANE_STATUS_SHARDS;
  if (env === undefined) delete process.env.TASKLANE_STATUS_SHARDS;
  else process.env.TASKLANE_STATUS_SHARDS = env;
  try {
    return createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      logger: silentLogger,
      pendingAgeMs: 0,
    });
  } finally {
    if (previous === undefined) delete process.env.TASKLANE_STATUS_SHARDS;
    else process.env.TASKLANE_STATUS_SHARDS = previous;
  }
}

describe('TaskStore.list of a status the index does not key', () => {
  it('pages through the Scan with a cursor, never more than the limit a page', async () => {
    const client = executor.client();
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push((await client.enqueue(email, { n })).id);
    for (const id of ids) await client.cancel(id);

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listByStatus(TaskStatus.CANCELLED, {
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      pages.push(page.items.map((r) => r.id));
      cursor = page.cursor;
    } while (cursor !== undefined && pages.length < 10);

    expect(pages.every((page) => page.length <= 2)).toBe(true);
    expect(pages.flat().sort()).toEqual([...ids].sort());
  });
});

describe('statusShards', () => {
  it('is honoured by the client, the worker and the sweeper, from an option or the environment', async () => {
    // Arrange: producers and the worker on 3 shards; the sweeper reads TASKLANE_STATUS_SHARDS.
    const client = executor.client({ statusShards: 3 });
    const { id: dead } = await client.enqueue(doomed, { n: 0 });
    await executor.deliver(
      executor.worker([doomed], { statusShards: 3 }),
      await executor.receive(),
    );
    const ids: string[] = [];
    for (let n = 1; n <= 5; n++) ids.push((await client.enqueue(email, { n })).id);

    // Act
    const keys = await Promise.all(ids.map(indexKeys));
    const deadKeys = await indexKeys(dead);
    const swept = await sweeperWith('3').run();
    const counts = await client.counts({ scan: false });

    // Assert
    expect(keys.map((k) => k.statusShard)).toEqual(
      ids.map((id) => `PENDING#${statusShard(id, 3)}`),
    );
    expect(deadKeys.statusShard).toBe(`DEAD#${statusShard(dead, 3)}`);
    expect(swept).toMatchObject({ sent: 5, failed: 0 });
    expect(counts.byStatus).toMatchObject({ PENDING: 5, DEAD: 1 });
  });

  it('leaves the entries of higher shards unread by a reader with fewer: why shards never shrink', async () => {
    const client = executor.client({ statusShards: 8 });
    const ids: string[] = [];
    for (let n = 0; n < 12; n++) ids.push((await client.enqueue(email, { n })).id);

    const narrow = await sweeperWith('1').run();
    const wide = await sweeperWith('8').run();

    expect(narrow.sent).toBe(ids.filter((id) => statusShard(id, 8) === 0).length);
    expect(wide.sent).toBe(12);
  });
});
