/**
 * A retry leaves its task out of the status index when its message outlives the delay by a
 * day (docs/adr/0068-a-retry-stays-off-the-index.md): the retry writes the due time and no
 * index entry, and the next claim removes nothing from the index. Operators still count and
 * list the task as QUEUED (by the Scan), a key-wide cancel still reaches it, and the sweeper
 * still finds it when its message is gone: through the DLQ, or the opt-in running scan. A
 * queue whose retention is short keeps the retry in the index, as before.
 */
import {
  DeleteMessageCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, Defaults, TableSchema, TaskStatus } from '../../src/core/constants.js';
import { taskMessage } from '../../src/core/message.js';
import type { TaskRecord } from '../../src/core/record.js';
import { statusShard, statusShardKey } from '../../src/store/record.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { failing } from '../helpers/failing-commands.js';
import { rawItem } from '../helpers/raw-item.js';

/** Far enough ahead that every retry below is overdue by the default threshold. */
const LATER_MS = Defaults.QUEUED_OVERDUE_MS + 10 * 60_000;
const DELAY_MS = 1000;

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** Fails its first attempt, then returns its payload's `n`. */
const flaky = defineTask('flaky', {
  schema: z.object({ n: z.number() }),
  retry: { maxAttempts: 3, baseDelayMs: DELAY_MS, maxDelayMs: DELAY_MS },
  handler: ({ n }, { attempt }) => {
    if (attempt === 1) throw new Error('dependency down');
    return n;
  },
});

/** Enqueues a flaky task and runs its failing first attempt. */
async function retried(
  options: { orderingKey?: string; sqs?: SQSClient } = {},
): Promise<{ id: string; message: SQSRecord }> {
  const client = executor.client();
  const { id } = await client.enqueue(
    flaky,
    { n: 7 },
    options.orderingKey === undefined ? {} : { orderingKey: options.orderingKey },
  );
  const [message] = await executor.receive({ waitTimeSeconds: 5 });
  if (message === undefined) throw new Error('expected a message');
  const worker = executor.worker([flaky], options.sqs === undefined ? {} : { sqs: options.sqs });
  await executor.deliver(worker, [message]);
  expect(await client.get(id)).toMatchObject({ status: TaskStatus.QUEUED, attempt: 1 });
  return { id, message };
}

/** Takes the task's message off the queue, as a purge or an expired retention does. */
async function dropMessage(message: SQSRecord): Promise<void> {
  await executor.clients.sqs.send(
    new DeleteMessageCommand({ QueueUrl: executor.queueUrl, ReceiptHandle: message.receiptHandle }),
  );
}

/** Waits out the retry delay, then lets the worker take the message. */
async function runToEnd(id: string): Promise<TaskRecord | undefined> {
  await new Promise((resolve) => setTimeout(resolve, DELAY_MS + 200));
  const records = await executor.receive({ waitTimeSeconds: 5 });
  await executor.deliver(executor.worker([flaky]), records);
  return executor.client().get(id);
}

describe('a retry off the status index', () => {
  it('writes the due time and no index entry, and the task is claimed and succeeds', async () => {
    const before = Date.now();
    const { id } = await retried();

    const item = await rawItem(executor, id);
    const after = Date.now();
    const done = await runToEnd(id);

    // The due time: the retry's write time plus its jittered delay (at most DELAY_MS).
    expect(item).not.toHaveProperty(TableSchema.STATUS_INDEX_PARTITION_KEY);
    const dueAt = Number(item[TableSchema.STATUS_INDEX_SORT_KEY]);
    expect(dueAt).toBeGreaterThanOrEqual(before);
    expect(dueAt).toBeLessThanOrEqual(after + DELAY_MS);
    expect(done).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 2, result: 7 });
    expect(done?.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.RETRY_SCHEDULED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });

  it('stays in the index when the queue’s retention is shorter than the delay and a day', async () => {
    await executor.clients.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: executor.queueUrl,
        Attributes: { MessageRetentionPeriod: String(12 * 60 * 60) },
      }),
    );

    const { id } = await retried();

    expect(await rawItem(executor, id)).toMatchObject({
      [TableSchema.STATUS_INDEX_PARTITION_KEY]: statusShardKey(
        TaskStatus.QUEUED,
        statusShard(id, executor.store.statusShards),
      ),
    });
  });

  it('stays in the index when the queue’s retention cannot be read, and spends no more attempts', async () => {
    const sqs = failing(new SQSClient({}), ['GetQueueAttributesCommand'], {
      name: 'ServiceUnavailable',
      message: 'SQS is down',
    });

    const { id } = await retried({ sqs });
    const item = await rawItem(executor, id);
    const done = await runToEnd(id);

    expect(item).toHaveProperty(TableSchema.STATUS_INDEX_PARTITION_KEY);
    expect(done).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 2 });
  });

  it('is counted and listed as QUEUED', async () => {
    const { id } = await retried();
    const client = executor.client();

    const counts = await client.counts({ byType: true });
    const listed = await client.list({ status: TaskStatus.QUEUED });
    const byStatus = await client.listByStatus(TaskStatus.QUEUED);
    const indexOnly = await client.counts({ scan: false });

    expect(counts.byStatus[TaskStatus.QUEUED]).toBe(1);
    expect(counts.retrying).toBe(1);
    expect(counts.retryingByType).toEqual({ flaky: 1 });
    expect(listed.items.map((t) => t.id)).toEqual([id]);
    const ids = [...byStatus.items.map((t) => t.id)];
    let cursor = byStatus.cursor;
    while (cursor !== undefined) {
      const page = await client.listByStatus(TaskStatus.QUEUED, { cursor });
      ids.push(...page.items.map((t) => t.id));
      cursor = page.cursor;
    }
    expect(ids).toEqual([id]);
    expect(indexOnly.byStatus[TaskStatus.QUEUED]).toBe(0);
    expect(indexOnly.retrying).toBeUndefined();
  });

  it('is cancelled by a cancel of its ordering key', async () => {
    const { id } = await retried({ orderingKey: 'acct-1' });

    const result = await executor.client().cancelMany({ orderingKey: 'acct-1' });

    expect(result.cancelled).toContain(id);
    expect((await executor.client().get(id))?.status).toBe(TaskStatus.CANCELLED);
  });
});

describe('the sweeper and a retry off the index whose message is gone', () => {
  it('sends it again from the DLQ once overdue, and it succeeds', async () => {
    const { id, message } = await retried();
    await dropMessage(message);
    const seen = (await executor.store.get(id)) as TaskRecord;
    await executor.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: executor.deadLetterQueueUrl, ...taskMessage(seen) }),
    );
    const dlq = { deadLetterQueueUrl: executor.deadLetterQueueUrl };

    // One sweep only: the pass hides each DLQ message it read for 30 s.
    const late = await executor.sweeper({ ...dlq, clock: () => Date.now() + LATER_MS }).run();
    const records = await executor.receive({ waitTimeSeconds: 5 });
    await executor.deliver(executor.worker([flaky]), records);

    expect(late).toMatchObject({ deadLettersChecked: 1, resent: 1, sent: 1, conflicts: 0 });
    expect(await executor.client().get(id)).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
      generation: 2,
    });
  });

  it('sends it again from the running scan once overdue, not before, when no message is left anywhere', async () => {
    const { id, message } = await retried();
    await dropMessage(message);

    const early = await executor.sweeper({ scanRunning: true }).run();
    const scheduled = await executor.sweeper({ clock: () => Date.now() + LATER_MS }).run();
    const scan = await executor
      .sweeper({ scanRunning: true, clock: () => Date.now() + LATER_MS })
      .run();
    const records = await executor.receive({ waitTimeSeconds: 5 });
    await executor.deliver(executor.worker([flaky]), records);

    expect(early).toMatchObject({ runningScanned: 0, resent: 0, sent: 0 });
    expect(scheduled).toMatchObject({ resent: 0, sent: 0 });
    expect(scan).toMatchObject({ runningScanned: 1, resent: 1, sent: 1, conflicts: 0 });
    expect(await executor.client().get(id)).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
      generation: 2,
    });
  });
});
