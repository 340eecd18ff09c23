/**
 * RUNNING leaves the status index (docs/adr/0052-running-leaves-the-status-index.md): the
 * claim removes the index keys and a heartbeat writes none, and the sweeper still finds a
 * running task whose worker died: through its message in the DLQ, through the opt-in running
 * scan when no message is left anywhere, and through a legacy index entry.
 */
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TableSchema, TaskStatus } from '../../src/core/constants.js';
import { taskMessage } from '../../src/core/message.js';
import type { TaskRecord } from '../../src/core/record.js';
import { statusShard, statusShardKey } from '../../src/store/record.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { putRawItem, rawItem } from '../helpers/raw-item.js';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

const noop = defineTask('noop', { schema: z.object({ n: z.number() }), handler: ({ n }) => n });
const once = defineTask('once-only', {
  schema: z.object({ n: z.number() }),
  retry: { maxAttempts: 1 },
  handler: ({ n }) => n,
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Enqueues, takes the message out of the work queue, and claims under a lease of `leaseMs`. */
async function claimedWithoutMessage(
  task: typeof noop,
  leaseMs: number,
): Promise<{ id: string; record: TaskRecord }> {
  const { id } = await executor.client().enqueue(task, { n: 7 });
  const [message] = await executor.receive({ visibilityTimeout: 600 });
  if (message === undefined) throw new Error('expected a message');
  await executor.clients.sqs.send(
    new DeleteMessageCommand({ QueueUrl: executor.queueUrl, ReceiptHandle: message.receiptHandle }),
  );
  const seen = await executor.store.get(id);
  if (seen === undefined) throw new Error('expected the record');
  const { record } = await executor.store.claim(seen, { workerId: 'crashed', leaseMs });
  return { id, record };
}

/** Puts the task's message into the DLQ, as SQS moves it after maxReceiveCount receives. */
async function deadLetter(record: TaskRecord): Promise<void> {
  await executor.clients.sqs.send(
    new SendMessageCommand({ QueueUrl: executor.deadLetterQueueUrl, ...taskMessage(record) }),
  );
}

async function dlqDepth(): Promise<number> {
  const out = await executor.clients.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: executor.deadLetterQueueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

describe('RUNNING outside the status index', () => {
  it('the claim removes the index keys, a heartbeat writes none, and the task completes', async () => {
    const { id } = await executor.client().enqueue(noop, { n: 1 });
    expect(await rawItem(executor, id)).toHaveProperty(TableSchema.STATUS_INDEX_PARTITION_KEY);
    const seen = (await executor.store.get(id)) as TaskRecord;

    const { lease } = await executor.store.claim(seen, { workerId: 'w', leaseMs: 60_000 });
    const claimed = await rawItem(executor, id);
    await executor.store.extendLease(lease, 120_000);
    const beaten = await rawItem(executor, id);
    await executor.store.complete(lease, '1');

    expect(claimed.status).toBe(TaskStatus.RUNNING);
    expect(claimed).not.toHaveProperty(TableSchema.STATUS_INDEX_PARTITION_KEY);
    expect(claimed).not.toHaveProperty(TableSchema.STATUS_INDEX_SORT_KEY);
    expect(beaten).not.toHaveProperty(TableSchema.STATUS_INDEX_PARTITION_KEY);
    expect(beaten).not.toHaveProperty(TableSchema.STATUS_INDEX_SORT_KEY);
    expect((await executor.client().get(id))?.status).toBe(TaskStatus.SUCCEEDED);
  });

  it('requeues a running task whose message reached the DLQ, leaves the DLQ message, and the task completes', async () => {
    const { id, record } = await claimedWithoutMessage(noop, 1);
    await deadLetter(record);
    await pause(5);

    const report = await executor
      .sweeper({ deadLetterQueueUrl: executor.deadLetterQueueUrl })
      .run();
    const redelivered = await executor.receive({ visibilityTimeout: 30 });
    const response = await executor.worker([noop]).processBatch(redelivered);

    expect(report).toMatchObject({ deadLettersChecked: 1, requeued: 1, killed: 0, sent: 1 });
    expect(response.batchItemFailures).toEqual([]);
    expect(await executor.client().get(id)).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
      generation: 2,
    });
    expect(await dlqDepth()).toBe(1);
  });

  it('declares DEAD a running task on its final attempt whose message reached the DLQ', async () => {
    const { id, record } = await claimedWithoutMessage(once, 1);
    await deadLetter(record);
    await pause(5);

    const report = await executor
      .sweeper({ deadLetterQueueUrl: executor.deadLetterQueueUrl })
      .run();

    expect(report).toMatchObject({ deadLettersChecked: 1, killed: 1, requeued: 0 });
    expect(await executor.client().get(id)).toMatchObject({
      status: TaskStatus.DEAD,
      deadReason: 'lease expired on the final attempt',
    });
  });

  it('leaves alone a running task named by a DLQ message while its lease is live', async () => {
    const { id, record } = await claimedWithoutMessage(noop, 600_000);
    await deadLetter(record);

    const report = await executor
      .sweeper({ deadLetterQueueUrl: executor.deadLetterQueueUrl })
      .run();

    expect(report).toMatchObject({ deadLettersChecked: 1, requeued: 0, killed: 0 });
    expect((await executor.client().get(id))?.status).toBe(TaskStatus.RUNNING);
  });

  it('finds a running task with no message anywhere only with scanRunning', async () => {
    const { id } = await claimedWithoutMessage(noop, 1);
    await pause(5);

    const plain = await executor.sweeper({ deadLetterQueueUrl: executor.deadLetterQueueUrl }).run();
    const stillRunning = (await executor.client().get(id))?.status;
    const scanned = await executor.sweeper({ scanRunning: true }).run();
    const redelivered = await executor.receive({ visibilityTimeout: 30 });
    const response = await executor.worker([noop]).processBatch(redelivered);

    expect(plain).toMatchObject({ requeued: 0, killed: 0, runningScanned: 0 });
    expect(stillRunning).toBe(TaskStatus.RUNNING);
    expect(scanned).toMatchObject({ runningScanned: 1, requeued: 1, sent: 1 });
    expect(response.batchItemFailures).toEqual([]);
    expect(await executor.client().get(id)).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
    });
  });

  it('still repairs a legacy running record that carries index keys, through the index', async () => {
    const { id } = await claimedWithoutMessage(noop, 1);
    // As the previous version left it: RUNNING, keyed by its lease's end.
    const item = await rawItem(executor, id);
    await putRawItem(executor, {
      ...item,
      [TableSchema.STATUS_INDEX_PARTITION_KEY]: statusShardKey(
        TaskStatus.RUNNING,
        statusShard(id, executor.store.statusShards),
      ),
      [TableSchema.STATUS_INDEX_SORT_KEY]: item.leaseExpiresAt,
    });
    await pause(5);

    const report = await executor.sweeper().run();

    expect(report).toMatchObject({ requeued: 1, sent: 1, runningScanned: 0 });
    const requeued = await rawItem(executor, id);
    expect(requeued.status).toBe(TaskStatus.PENDING);
  });
});
