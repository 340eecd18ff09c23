/**
 * A purge frees a task's id, and a producer may enqueue the id again. A message of the purged
 * task that is still about (a crashed worker's, which comes back when its visibility ends, or a
 * dead letter moved back) names the purged task's creation time, so it never claims the task
 * enqueued again under the id (docs/adr/0063-messages-name-their-task-incarnation.md).
 */
import { DeleteMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { taskMessage } from '../../src/core/message.js';
import type { TaskRecord } from '../../src/core/record.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const KEY = 'acct-7';

let executor: TestExecutor;
/** The payloads run, in order. */
const ran: string[] = [];

beforeEach(async () => {
  executor = await setupExecutor();
  ran.length = 0;
});

const entry = defineTask('ledger.post', {
  schema: z.object({ name: z.string() }),
  retry: { maxAttempts: 1 },
  handler: ({ name }) => {
    ran.push(name);
    if (name === 'broken') throw new PermanentError('rejected');
  },
});

/** Runs `broken` under the id `x` on KEY until it is DEAD, and returns its record. */
async function deadTask(): Promise<TaskRecord> {
  await executor.client().enqueue(entry, { name: 'broken' }, { id: 'x', orderingKey: KEY });
  await executor.drain(executor.worker([entry]));
  const dead = await executor.store.get('x');
  expect(dead?.status).toBe(TaskStatus.DEAD);
  return dead ?? expect.fail('no record');
}

/** Puts a message of `record` back in the work queue, at the end of its key's group. */
async function resend(record: TaskRecord, queueUrl = executor.queueUrl): Promise<void> {
  const message = taskMessage(record);
  await executor.clients.sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      ...message,
      MessageDeduplicationId: `stale-${message.MessageDeduplicationId.slice(0, 32)}`,
    }),
  );
}

describe('messages of a purged task', () => {
  it('a message of the purged task does not run the task enqueued again under its id, nor ahead of its key', async () => {
    // Arrange: `x` died and was purged; a message of it came back to the head of KEY's group.
    const purged = await deadTask();
    const client = executor.client();
    await client.purge({ status: TaskStatus.DEAD, olderThan: '0s' });
    await resend(purged);
    ran.length = 0;

    // Act: `first`, then `x` again, on the same key.
    await client.enqueue(entry, { name: 'first' }, { id: 'first', orderingKey: KEY });
    const again = await client.enqueue(entry, { name: 'again' }, { id: 'x', orderingKey: KEY });
    await executor.drain(executor.worker([entry]));

    // Assert: the stale message ran nothing; the key's order held; `x` ran once, from its own.
    expect(again.created).toBe(true);
    expect(ran).toEqual(['first', 'again']);
    const record = await executor.store.get('x');
    expect(record).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect(record?.createdAt).not.toBe(purged.createdAt);
    expect(record?.history.filter((h) => h.event === AuditEvent.CLAIMED)).toHaveLength(1);
    expect(await executor.receive({ visibilityTimeout: 0 })).toEqual([]);
  });

  it('the message of a task enqueued again under a purged id within five minutes is not dropped as a duplicate', async () => {
    // Arrange: `x` died and was purged seconds ago; SQS keeps deduplication ids for 5 minutes.
    await executor.client().enqueue(entry, { name: 'broken' }, { id: 'x' });
    const [first] = await executor.receive({ visibilityTimeout: 0 });
    await executor.drain(executor.worker([entry]));
    const client = executor.client();
    await client.purge({ status: TaskStatus.DEAD, olderThan: '0s' });
    ran.length = 0;

    // Act
    const again = await client.enqueue(entry, { name: 'again' }, { id: 'x' });
    const messages = await executor.receive({ visibilityTimeout: 0 });

    // Assert: its own message is in the queue, naming the new record, under a deduplication
    // id of its own (SQS would drop one equal to the purged task's).
    expect(again.sent).toBe(true);
    expect(messages[0]?.attributes.MessageDeduplicationId).toEqual(expect.any(String));
    expect(messages[0]?.attributes.MessageDeduplicationId).not.toBe(
      first?.attributes.MessageDeduplicationId,
    );
    expect(messages.map((m) => JSON.parse(m.body) as unknown)).toEqual([
      expect.objectContaining({ id: 'x', createdAt: again.record.createdAt }),
    ]);
  });

  it("a dead letter of the purged task is deleted by redrive's drain, not moved back", async () => {
    // Arrange: a dead letter of `x` (say, after its worker crashed too often) outlived its task.
    const purged = await deadTask();
    const client = executor.client({ deadLetterQueueUrl: executor.deadLetterQueueUrl });
    await client.purge({ status: TaskStatus.DEAD, olderThan: '0s' });
    await client.enqueue(entry, { name: 'again' }, { id: 'x', orderingKey: KEY });
    await resend(purged, executor.deadLetterQueueUrl);
    // The new task's own message is taken out of the way, as if a worker held it.
    const [own] = await executor.receive({ visibilityTimeout: 0 });
    await executor.clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: executor.queueUrl, ReceiptHandle: own?.receiptHandle }),
    );

    // Act
    const result = await client.redrive({ all: true });

    // Assert
    expect(result.dlq).toEqual({ deleted: 1, movedBack: 0, released: 0 });
    expect(await executor.receive({ visibilityTimeout: 0 })).toEqual([]);
    expect((await client.get('x'))?.status).toBe(TaskStatus.PENDING);
  });
});
