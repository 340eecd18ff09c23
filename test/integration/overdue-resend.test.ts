import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, Defaults, TaskStatus } from '../../src/core/constants.js';
import { TransitionRejectedError } from '../../src/core/errors.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { RepairWrites } from '../../src/store/repair-writes.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, silentLogger, type TestExecutor } from '../helpers/executor.js';
import { markSentAsOlderVersionsDid } from '../helpers/legacy-writes.js';

/** Far enough ahead that every QUEUED task is overdue by the default threshold. */
const LATER_MS = Defaults.QUEUED_OVERDUE_MS + 10 * 60_000;

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

function sweeper(clock: () => number) {
  return createSweeper({
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    ...executor.clients,
    logger: silentLogger,
    metrics: noopMetrics,
    clock,
  });
}

/**
 * A task waiting QUEUED, as a retry leaves it or an older producer's marked send did (the SDK
 * no longer marks sends: a freshly sent task stays PENDING, docs/adr/0020-claim-without-pre-read.md).
 */
async function enqueueQueued(): Promise<{ id: string }> {
  const { record } = await executor.client().enqueue(noop, {});
  await markSentAsOlderVersionsDid(executor.clients.dynamodb, executor.tableName, record);
  return { id: record.id };
}

const runs: string[] = [];
const noop = defineTask('noop', {
  schema: z.object({}),
  handler: (_payload, { taskId }) => {
    runs.push(taskId);
  },
});

describe('sweep of overdue QUEUED tasks', () => {
  it('re-sends a retrying task whose message outlived the queue retention, and it succeeds', async () => {
    // Arrange: a task whose first attempt fails with a retry delay of two minutes, and whose
    // message is then gone, as a retention shorter than the delay drops it. The message is
    // taken off the queue here instead of waiting out SQS's shortest retention (60 s): fault
    // scenario (o), test/faults/short-retention.test.ts, runs the same path with the queue's
    // real retention.
    const flaky = defineTask('flaky', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 120_000, maxDelayMs: 120_000 },
      handler: (_payload, { attempt }) => {
        if (attempt === 1) throw new Error('dependency down');
        return 'done';
      },
    });
    // The queue's retention is shorter than the delay and a day, and the worker reads it:
    // the retry stays in the status index (docs/adr/0068-a-retry-stays-off-the-index.md).
    await executor.clients.sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: executor.queueUrl,
        Attributes: { MessageRetentionPeriod: '60' },
      }),
    );
    const client = executor.client();
    const worker = executor.worker([flaky]);
    const { id } = await client.enqueue(flaky, {});
    const [first] = await executor.receive({ waitTimeSeconds: 5 });
    if (first === undefined) throw new Error('no message');
    await executor.deliver(worker, [first]);
    expect(await client.get(id)).toMatchObject({ status: TaskStatus.QUEUED, attempt: 1 });
    await executor.clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: executor.queueUrl, ReceiptHandle: first.receiptHandle }),
    );
    const { Attributes: left } = await executor.clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: executor.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    expect(left).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    }); // The task has no message left.

    // Act: a sweep once the retry is long overdue, then the worker takes the new message.
    const report = await sweeper(() => Date.now() + LATER_MS).run();
    const records = await executor.receive({ waitTimeSeconds: 5 });
    await executor.deliver(worker, records);

    // Assert
    expect(report).toMatchObject({ resent: 1, sent: 1, unsent: 0, conflicts: 0 });
    expect(records).toHaveLength(1);
    const record = await client.get(id);
    expect(record).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
      generation: 2,
      result: 'done',
    });
    expect(record?.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.RETRY_SCHEDULED,
      AuditEvent.RESENT,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });

  it('leaves a QUEUED task alone until it is overdue', async () => {
    const { id } = await enqueueQueued();

    const report = await sweeper(() => Date.now() + Defaults.QUEUED_OVERDUE_MS - 60_000).run();

    expect(report.resent).toBe(0);
    expect(await executor.client().get(id)).toMatchObject({
      status: TaskStatus.QUEUED,
      generation: 1,
    });
    expect(await executor.queueDepth()).toBe(1);
  });

  it('runs the task once when its original message was still there: the copy is dropped', async () => {
    // A task waiting (say, behind its ordering key) past the threshold.
    const client = executor.client();
    const { id } = await enqueueQueued();
    runs.length = 0;

    const report = await sweeper(() => Date.now() + LATER_MS).run();
    const depth = await executor.queueDepth();
    const drained = await executor.drain(executor.worker([noop]));

    expect(report).toMatchObject({ resent: 1, sent: 1 });
    expect(depth).toBe(2);
    expect(drained).toEqual({ processed: 2, failed: 0 });
    expect(runs).toEqual([id]);
    const record = await client.get(id);
    expect(record).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1, generation: 2 });
  });

  it('lets only one of two racing sweepers re-send a task', async () => {
    const client = executor.client();
    const { id } = await enqueueQueued();
    const later = Date.now() + LATER_MS;

    const reports = await Promise.all([sweeper(() => later).run(), sweeper(() => later).run()]);

    expect(reports.map((r) => r.resent).sort()).toEqual([0, 1]);
    expect(await client.get(id)).toMatchObject({ status: TaskStatus.PENDING, generation: 2 });
  });
});

describe('TaskStore.resend', () => {
  it('is refused once a worker claimed the task, with the record it found', async () => {
    const client = executor.client();
    const { id } = await client.enqueue(noop, {});
    const seen = await executor.store.get(id);
    if (seen === undefined) throw new Error('no record');
    await executor.store.claim(seen, { workerId: 'w1', leaseMs: 60_000 });

    const refusal = await executor.store
      .feature(RepairWrites)
      .resend(seen, Date.now() + LATER_MS)
      .catch((e) => e);

    expect(refusal).toBeInstanceOf(TransitionRejectedError);
    expect((refusal as TransitionRejectedError).current).toMatchObject({
      status: TaskStatus.RUNNING,
      attempt: 1,
    });
  });

  it('is refused while the task is not yet overdue', async () => {
    const client = executor.client();
    const { id } = await enqueueQueued();
    const seen = await executor.store.get(id);
    if (seen === undefined) throw new Error('no record');

    const refusal = await executor.store
      .feature(RepairWrites)
      .resend(seen, Date.now() - 60_000)
      .catch((e) => e);

    expect(refusal).toBeInstanceOf(TransitionRejectedError);
    expect(await client.get(id)).toMatchObject({ status: TaskStatus.QUEUED, generation: 1 });
  });
});
