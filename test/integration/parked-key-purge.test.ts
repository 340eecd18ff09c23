import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { ParkedKeys } from '../../src/store/parked-keys.js';
import { purgeDead } from '../../src/store/purge.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, silentLogger, type TestExecutor } from '../helpers/executor.js';
import { throttledSqs } from '../helpers/failing-commands.js';

const KEY = 'acct-9';
const DAY = 24 * 60 * 60 * 1000;

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** The payloads run, in order. */
const ran: string[] = [];

const posting = defineTask('ledger.entry', {
  schema: z.object({ name: z.string() }),
  retry: { maxAttempts: 1 },
  onDead: 'park',
  handler: ({ name }) => {
    ran.push(name);
    if (name === 'broken') throw new PermanentError('rejected');
  },
});

/** Parks KEY with a dead task `broken`, then enqueues `late`, whose send fails. */
async function parkAndEnqueueUnsent() {
  await executor.client().enqueue(posting, { name: 'broken' }, { id: 'broken', orderingKey: KEY });
  await executor.drain(executor.worker([posting]));
  const late = await executor
    .client({ sqs: throttledSqs() })
    .enqueue(posting, { name: 'late' }, { id: 'late', orderingKey: KEY });
  expect(late.sent).toBe(false);
}

const sweeper = () =>
  createSweeper({
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    ...executor.clients,
    logger: silentLogger,
    metrics: noopMetrics,
    pendingAgeMs: 0,
  });

/** Reads and rewrites the raw park item of KEY. */
async function rewriteParkItem(change: (item: Record<string, unknown>) => Record<string, unknown>) {
  const doc = DynamoDBDocumentClient.from(executor.clients.dynamodb);
  const TableName = executor.tableName;
  const Key = { pk: `parked-key ${KEY}` };
  const out = await doc.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
  await doc.send(new PutCommand({ TableName, Item: change(out.Item ?? {}) }));
}

/** Makes a held message visible at once, as its 12-hour hold ending would. */
async function showNow(receiptHandle: string | undefined) {
  await executor.clients.sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: executor.queueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: 0,
    }),
  );
}

describe('parked keys and purge', () => {
  it('purge deletes the park item with the parked task', async () => {
    await parkAndEnqueueUnsent();
    const broken = await executor.store.get('broken');

    await purgeDead(executor.store, broken ?? expect.fail('no dead task'));

    expect(await executor.store.feature(ParkedKeys).get(KEY)).toBeUndefined();
    expect(await executor.client().parkedKeys()).toEqual([]);
  });

  it("a task enqueued again under a purged parked task's id is not run by its held message", async () => {
    const client = executor.client();
    await client.enqueue(posting, { name: 'broken' }, { id: 'broken', orderingKey: KEY });
    await executor.drain(executor.worker([posting]));
    const park = await executor.store.feature(ParkedKeys).get(KEY);
    const purge = await client.purge({ status: TaskStatus.DEAD, olderThan: '0s' });
    ran.length = 0;

    await client.enqueue(posting, { name: 'first' }, { id: 'first', orderingKey: KEY });
    await client.enqueue(posting, { name: 'again' }, { id: 'broken', orderingKey: KEY });
    // A held message left in the queue would come back (every 12 hours; here at once) ahead
    // of both, and claim the new task of its id.
    await showNow(park?.receiptHandle).catch(() => undefined);
    await executor.drain(executor.worker([posting]));

    expect(purge.purged).toEqual(['broken']);
    // The new task runs from its own message, after 'first': its deduplication id covers its
    // creation time, so SQS did not drop it as a duplicate of the purged task's (ADR 0063).
    expect(ran).toEqual(['first', 'again']);
    const again = await executor.store.get('broken');
    expect(again?.status).toBe(TaskStatus.SUCCEEDED);
    expect(again?.payload).toEqual({ name: 'again' });
  });

  it('the sweeper sends the unsent tasks of a key whose parked task was purged', async () => {
    await parkAndEnqueueUnsent();
    const broken = await executor.store.get('broken');
    const park = await executor.store.feature(ParkedKeys).get(KEY);
    // A purge that crashed between its two deletes: the task gone, its park item kept.
    let kept: Record<string, unknown> = {};
    await rewriteParkItem((item) => {
      kept = item;
      return item;
    });
    await purgeDead(executor.store, broken ?? expect.fail('no dead task'));
    await rewriteParkItem(() => kept);

    const report = await sweeper().run();
    // The held message comes back (every 12 hours; here at once) and meets no task.
    await showNow(park?.receiptHandle);
    await executor.drain(executor.worker([posting]));

    expect(report.sent).toBe(1);
    expect((await executor.store.get('late'))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(await executor.store.feature(ParkedKeys).get(KEY)).toBeUndefined();
  });

  it('the sweeper sends the unsent tasks of a key whose held message outlived its retention', async () => {
    await parkAndEnqueueUnsent();
    // The held message was first sent 15 days ago: SQS has deleted it, the key is not held.
    await rewriteParkItem((item) => ({ ...item, messageSentAt: Date.now() - 15 * DAY }));

    const report = await sweeper().run();

    expect(report.sent).toBe(1);
  });

  it('the sweeper sends the unsent tasks of a key whose held message stopped coming back', async () => {
    await parkAndEnqueueUnsent();
    // Last held a day ago: a held message comes back every 12 hours while it lives.
    await rewriteParkItem((item) => ({ ...item, updatedAt: Date.now() - DAY }));

    const report = await sweeper().run();

    expect(report.sent).toBe(1);
  });

  it('the sweeper still holds back the unsent tasks of a key that is parked', async () => {
    await parkAndEnqueueUnsent();

    const report = await sweeper().run();

    expect(report.sent).toBe(0);
    expect((await executor.store.get('late'))?.status).toBe(TaskStatus.PENDING);
  });
});
