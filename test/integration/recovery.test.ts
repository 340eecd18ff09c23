import {
  DeleteMessageCommand,
  type SendMessageBatchCommandInput,
  type SendMessageBatchCommandOutput,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { ConfigurationError, LeaseLostError } from '../../src/core/errors.js';
import type { TaskRecord } from '../../src/core/record.js';
import { noopMetrics, type TaskMetrics } from '../../src/observability/metrics.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testClients } from '../helpers/aws.js';
import {
  recordingLogger,
  setupExecutor,
  silentLogger,
  type TestExecutor,
} from '../helpers/executor.js';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

function sweeper(clock: () => number = Date.now, metrics: TaskMetrics = noopMetrics) {
  return createSweeper({
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    ...executor.clients,
    logger: silentLogger,
    metrics,
    pendingAgeMs: 0,
    // These tests take a running task's message away without a DLQ entry: the running scan
    // finds it (docs/adr/0052-running-leaves-the-status-index.md; the DLQ pass has its own
    // tests in running-unindexed.test.ts).
    scanRunning: true,
    clock,
  });
}

const noop = defineTask('noop', { schema: z.object({ n: z.number() }), handler: ({ n }) => n });

describe('sweep', () => {
  it('sends a task whose message was never sent (the outbox)', async () => {
    // The producer's send fails after the record is written (here because its queue
    // URL is wrong, which enqueue reports as a ConfigurationError).
    const broken = executor.client({ queueUrl: `${executor.queueUrl}-missing` });
    const id = 'never-sent';
    const failure = await broken.enqueue(noop, { n: 1 }, { id }).catch((err: unknown) => err);

    const report = await sweeper().run();

    expect(failure).toBeInstanceOf(ConfigurationError);
    expect(report).toMatchObject({ sent: 1, unsent: 0, requeued: 0 });
    expect((await executor.client().get(id))?.status).toBe(TaskStatus.PENDING);
    expect(await executor.queueDepth()).toBe(1);
  });

  it('requeues a task whose lease expired, under a new generation, and the next claim is a new attempt', async () => {
    // Arrange: a worker claims the task and dies, and its message is gone (moved to the DLQ
    // after too many receives): only the sweeper can bring the task back.
    const client = executor.client();
    const { id } = await client.enqueue(noop, { n: 2 });
    const [message] = await executor.receive({ visibilityTimeout: 600 });
    if (message === undefined) throw new Error('expected a message');
    await executor.clients.sqs.send(
      new DeleteMessageCommand({
        QueueUrl: executor.queueUrl,
        ReceiptHandle: message.receiptHandle,
      }),
    );
    const seen = await executor.store.get(id);
    if (seen === undefined) throw new Error('expected the record');
    await executor.store.claim(seen, { workerId: 'crashed', leaseMs: 1 });
    await new Promise((r) => setTimeout(r, 5));

    // Act
    const report = await sweeper().run();
    const redelivered = await executor.receive({ visibilityTimeout: 30 });
    const response = await executor.worker([noop]).processBatch(redelivered);

    // Assert
    expect(report).toMatchObject({ requeued: 1, sent: 1, killed: 0 });
    expect(response.batchItemFailures).toEqual([]);
    const record = await client.get(id);
    expect(record).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
      generation: 2,
      result: 2,
    });
    expect(record?.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.REQUEUED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });

  it('declares a task DEAD when its lease expired on the final attempt', async () => {
    const once = defineTask('once-only', {
      schema: z.object({}),
      retry: { maxAttempts: 1 },
      handler: () => 1,
    });
    const client = executor.client();
    const { id } = await client.enqueue(once, {});
    const seen = await executor.store.get(id);
    if (seen === undefined) throw new Error('expected the record');
    await executor.store.claim(seen, { workerId: 'crashed', leaseMs: 1 });
    await new Promise((r) => setTimeout(r, 5));
    const counted: [string, number | undefined][] = [];
    const metrics = { ...noopMetrics, count: (o: string, n?: number) => counted.push([o, n]) };

    const report = await sweeper(Date.now, metrics).run();

    expect(report).toMatchObject({ killed: 1, requeued: 0 });
    // The DEAD alarm counts the sweeper's kills as well as the worker's.
    expect(counted).toEqual([['dead', 1]]);
    const record = await client.get(id);
    expect(record?.status).toBe(TaskStatus.DEAD);
    expect(record?.deadReason).toBe('lease expired on the final attempt');
  });

  it('is safe to run twice at once: each repair happens once', async () => {
    const client = executor.client();
    const ids: string[] = [];
    for (let n = 0; n < 6; n++) {
      const { id } = await client.enqueue(noop, { n });
      const seen = await executor.store.get(id);
      if (seen === undefined) throw new Error('expected the record');
      await executor.store.claim(seen, { workerId: 'crashed', leaseMs: 1 });
      ids.push(id);
    }
    await new Promise((r) => setTimeout(r, 5));

    const [a, b] = await Promise.all([sweeper().run(), sweeper().run()]);

    expect((a?.requeued ?? 0) + (b?.requeued ?? 0)).toBe(6);
    for (const id of ids) {
      const record = await client.get(id);
      expect(record?.history.filter((h) => h.event === AuditEvent.REQUEUED)).toHaveLength(1);
      expect(record?.generation).toBe(2);
    }
  });
});

describe('outbox ordering', () => {
  it('holds back the later tasks of a key whose send failed, and the sweeper sends them in order', async () => {
    // Arrange: the last entry of the first SendMessageBatch, the 10th task of key "k", is
    // refused (a per-entry failure); the next batch holds the rest of the key and another task.
    const started: number[] = [];
    const step = defineTask('ordered', {
      schema: z.object({ seq: z.number() }),
      handler: ({ seq }) => {
        started.push(seq);
      },
    });
    const { sqs } = testClients();
    const refusedId = 'k-9';
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'SendMessageBatchCommand') return next(args);
        const input = args.input as SendMessageBatchCommandInput;
        const refused = input.Entries?.find(
          (e) => JSON.parse(e.MessageBody ?? '{}').id === refusedId,
        );
        if (refused === undefined) return next(args);
        input.Entries = input.Entries?.filter((e) => e !== refused);
        const result = await next(args);
        const output = result.output as SendMessageBatchCommandOutput;
        output.Failed = [
          ...(output.Failed ?? []),
          { Id: refused.Id, Code: 'InternalError', SenderFault: false, Message: 'injected' },
        ];
        return result;
      },
      { step: 'initialize', name: 'refuseOneEntry' },
    );
    const client = executor.client({ sqs });
    const entries = Array.from({ length: 15 }, (_, seq) => ({
      task: step,
      payload: { seq },
      options: { id: `k-${seq}`, orderingKey: 'k' },
    }));
    const other = { task: step, payload: { seq: 100 }, options: { id: 'unkeyed' } };

    // Act
    const results = await client.enqueueBatch([...entries, other]);

    // Assert: 0-8 and the unkeyed task went out; 9 failed and 10-14 were held back.
    const sent = results.map((r) => (r.ok ? r.sent : 'error'));
    expect(sent).toEqual([
      ...Array.from({ length: 9 }, () => true),
      ...Array.from({ length: 6 }, () => false),
      true,
    ]);
    expect(await executor.queueDepth()).toBe(10);
    for (const r of results.slice(9, 15)) expect(r.ok && r.record.status).toBe(TaskStatus.PENDING);

    // Act: the sweeper sends the held-back tasks (a client without the fault), then they run.
    const report = await sweeper().run();
    const depth = await executor.queueDepth();
    await executor.drain(executor.worker([step]));

    // Assert: no write records a send, so every PENDING task older than the sweep's grace
    // (0 here) is sent; SQS deduplicates the 10 already in the queue (ADR 0020).
    expect(report.sent).toBe(16);
    expect(depth).toBe(16);
    expect(started.filter((seq) => seq < 100)).toEqual(Array.from({ length: 15 }, (_, i) => i));
  });
});

describe('sweep of delayed tasks', () => {
  it('sends an overdue SCHEDULED task whose schedule never existed, and it runs once', async () => {
    // Arrange: the producer died between writing the record and creating the schedule.
    const client = executor.client();
    const { record } = await executor.store.feature(RecordWrites).create({
      id: 'late',
      type: 'noop',
      payloadJson: '{"n":5}',
      payloadHash: 'h',
      maxAttempts: 3,
      timeoutMs: 30_000,
      messageGroupId: 'late',
      runAt: Date.now() - 5 * 60_000,
      scheduled: true,
    });

    // Act
    const report = await createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      queueArn: executor.queueArn,
      scheduleGroup: executor.scheduler.scheduleGroup,
      schedulerRoleArn: executor.scheduler.schedulerRoleArn,
      scheduleDeadLetterArn: executor.scheduler.scheduleDeadLetterArn,
      ...executor.clients,
      logger: silentLogger,
      metrics: noopMetrics,
    }).run();
    await executor.deliver(executor.worker([noop]), await executor.receive());

    // Assert
    expect(record.status).toBe(TaskStatus.SCHEDULED);
    expect(report.scheduledChecked).toBe(1);
    expect(await client.get('late')).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 1,
      result: 5,
    });
  });
});

describe('TaskClient.redrive', () => {
  it('moves a DEAD task back to work with a fresh attempt budget, keeping its history', async () => {
    // Arrange: the task dies, then its dependency is fixed.
    let broken = true;
    const flaky = defineTask('needs-fix', {
      schema: z.object({}),
      retry: { maxAttempts: 1 },
      handler: () => {
        if (broken) throw new Error('dependency down');
        return 'ok';
      },
    });
    const client = executor.client({ deadLetterQueueUrl: executor.deadLetterQueueUrl });
    const { id } = await client.enqueue(flaky, {});
    await executor.deliver(executor.worker([flaky]), await executor.receive());
    expect((await client.get(id))?.status).toBe(TaskStatus.DEAD);
    broken = false;

    // Act
    const result = await client.redrive({ ids: [id] });
    await executor.deliver(executor.worker([flaky]), await executor.receive());

    // Assert
    expect(result).toMatchObject({ redriven: [id], unsent: [], skipped: [] });
    const record = await client.get(id);
    expect(record).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 1,
      generation: 2,
      result: 'ok',
    });
    const events = record?.history.map((h) => h.event) ?? [];
    expect(events.filter((e) => e === AuditEvent.DEAD)).toHaveLength(1);
    expect(events.slice(events.indexOf(AuditEvent.REDRIVEN))).toEqual([
      AuditEvent.REDRIVEN,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });

  it('re-sends the dead tasks of one key in their original order and skips what is not DEAD', async () => {
    const always = defineTask('always-dies', {
      schema: z.object({ n: z.number() }),
      retry: { maxAttempts: 1 },
      handler: () => {
        throw new Error('no');
      },
    });
    const client = executor.client();
    const dead: string[] = [];
    for (let n = 0; n < 3; n++) {
      const { id } = await client.enqueue(always, { n }, { orderingKey: 'k' });
      dead.push(id);
      await executor.deliver(executor.worker([always]), await executor.receive());
    }
    const { id: alive } = await client.enqueue(noop, { n: 9 });

    const progress: [number, number][] = [];
    const result = await client.redrive(
      { all: true, orderingKey: 'k' },
      { onProgress: (done, total) => progress.push([done, total]) },
    );
    const skipped = await client.redrive({ ids: [alive, 'missing'] });
    const messages = [];
    for (let i = 0; i < 4; i++)
      messages.push(...(await executor.receive({ visibilityTimeout: 0 })));

    expect(result.redriven).toEqual(dead);
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(skipped.skipped.map((s) => s.id)).toEqual([alive, 'missing']);
    const order = messages
      .filter((m) => m.attributes.MessageGroupId === 'k')
      .map((m) => JSON.parse(m.body).id as string);
    expect(order.slice(0, 3)).toEqual(dead);
  });
});

describe('TaskClient.redrive dead-letter drain', () => {
  it('moves a waiting task back to the work queue and deletes obsolete or forged dead letters', async () => {
    // Arrange: two messages reached the DLQ: one of a task still waiting, one forged.
    const client = executor.client({ deadLetterQueueUrl: executor.deadLetterQueueUrl });
    const { id: waiting } = await client.enqueue(noop, { n: 1 });
    const [original] = await executor.receive({ visibilityTimeout: 0 });
    await executor.clients.sqs.send(
      new DeleteMessageCommand({
        QueueUrl: executor.queueUrl,
        ReceiptHandle: original?.receiptHandle,
      }),
    );
    for (const [body, group] of [
      [original?.body ?? '', waiting],
      ['{"tasklane":1,"id":"forged","type":"noop"}', 'forged'],
    ]) {
      await executor.clients.sqs.send(
        new SendMessageCommand({
          QueueUrl: executor.deadLetterQueueUrl,
          MessageBody: body,
          MessageGroupId: group,
          MessageDeduplicationId: group,
        }),
      );
    }

    // Act
    const result = await client.redrive({ all: true });
    const response = await executor.deliver(executor.worker([noop]), await executor.receive());

    // Assert
    expect(result.dlq).toEqual({ deleted: 1, movedBack: 1, released: 0 });
    expect(response.batchItemFailures).toEqual([]);
    expect((await client.get(waiting))?.status).toBe(TaskStatus.SUCCEEDED);
  });
});

describe('TaskClient.purge', () => {
  it('deletes DEAD tasks older than the given age and leaves an unfinished task', async () => {
    const dies = defineTask('dies', {
      schema: z.object({}),
      retry: { maxAttempts: 1 },
      handler: () => {
        throw new Error('no');
      },
    });
    const client = executor.client();
    const { id: deadId } = await client.enqueue(dies, {});
    await executor.deliver(executor.worker([dies]), await executor.receive());
    const { id: queuedId } = await client.enqueue(noop, { n: 1 });

    const { purged } = await client.purge({ status: TaskStatus.DEAD, olderThan: 0 });

    expect(purged).toEqual([deadId]);
    expect(await client.get(deadId)).toBeUndefined();
    expect((await client.get(queuedId))?.status).toBe(TaskStatus.PENDING);
  });
});

describe('worker heartbeats', () => {
  it('keeps a long task leased with automatic heartbeats and completes it in one attempt', async () => {
    const long = defineTask('long', {
      schema: z.object({}),
      timeout: 5_000,
      handler: async () => {
        await new Promise((r) => setTimeout(r, 1_500));
        return 'done';
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(long, {});

    await executor
      .worker([long], { leaseGraceMs: 0, leaseDurationMs: 600 })
      .processBatch(await executor.receive());

    const record = await client.get(id);
    expect(record).toMatchObject({ status: TaskStatus.SUCCEEDED, attempt: 1 });
    expect(record?.heartbeats).toBeGreaterThanOrEqual(2);
    expect(record?.history.map((h) => h.event)).not.toContain(AuditEvent.HEARTBEAT_EXTENDED);
  });

  it('aborts the handler and writes nothing when a heartbeat finds the lease lost', async () => {
    // Arrange: A runs with short, heartbeat-extended leases; B (an hour ahead) takes over.
    let signalA: AbortSignal | undefined;
    const contested = defineTask('contested', {
      schema: z.object({}),
      timeout: 10_000,
      handler: async (_p, ctx) => {
        if (ctx.attempt === 1) {
          signalA = ctx.signal;
          await new Promise((r) => setTimeout(r, 3_000));
          return 'from A';
        }
        return 'from B';
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(contested, {});
    const [message] = await executor.receive({ visibilityTimeout: 60 });
    if (message === undefined) throw new Error('expected a message');
    const logger = recordingLogger();
    const a = executor.worker([contested], {
      workerId: 'a',
      logger,
      leaseGraceMs: 0,
      leaseDurationMs: 900,
    });
    const b = executor.worker([contested], { workerId: 'b', clock: () => Date.now() + 3_600_000 });

    // Act
    const running = a.processBatch([message]);
    await new Promise((r) => setTimeout(r, 200));
    await b.processBatch([message]);
    const stale = await running;

    // Assert: A hands its message back instead of acknowledging it (ADR 0007).
    expect(stale.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    expect(signalA?.aborted).toBe(true);
    expect(signalA?.reason).toBeInstanceOf(LeaseLostError);
    const record = await client.get(id);
    expect(record).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
      result: 'from B',
      workerId: 'b',
    });
    expect(logger.lines.some((l) => l.attributes.event === AuditEvent.STALE_DROPPED)).toBe(true);
  });
});

describe('lease takeovers', () => {
  /** Claims a task as a worker that then crashed: its lease expires at once. */
  async function loseLease(record: TaskRecord): Promise<void> {
    await executor.store.claim(record, { workerId: 'crashed', leaseMs: 1 });
    await new Promise((r) => setTimeout(r, 5));
  }

  /** A task type whose runs leave `start n` and `end n` in `trace`. */
  function tracedTask() {
    const trace: string[] = [];
    const task = defineTask('traced', {
      schema: z.object({ n: z.number() }),
      handler: async ({ n }) => {
        trace.push(`start ${n}`);
        await new Promise((r) => setTimeout(r, 50));
        trace.push(`end ${n}`);
      },
    });
    return { task, trace };
  }

  /** Enqueues tasks n = 1, 2, …; those in `crashed` were claimed by a worker that died. */
  async function enqueueTraced(
    task: ReturnType<typeof tracedTask>['task'],
    count: number,
    crashed: readonly number[],
  ): Promise<string[]> {
    const results = await executor
      .client()
      .enqueueBatch(Array.from({ length: count }, (_, i) => ({ task, payload: { n: i + 1 } })));
    const ids: string[] = [];
    for (const [i, result] of results.entries()) {
      if (!result.ok) throw result.error;
      ids.push(result.id);
      if (crashed.includes(i + 1)) await loseLease(result.record);
    }
    return ids;
  }

  /** Whether no two runs in the trace overlapped. */
  function oneAtATime(trace: readonly string[]): boolean {
    return trace.every((event, i) =>
      i % 2 === 0 ? event.startsWith('start') : event.startsWith('end'),
    );
  }

  it('runs a lost-lease task alone, after its batch-mates have finished', async () => {
    // Three tasks in one batch; the first one's last attempt crashed its worker.
    const { task, trace } = tracedTask();
    const ids = await enqueueTraced(task, 3, [1]);
    const batch = await executor.receive({ visibilityTimeout: 30 });
    expect(batch).toHaveLength(3);
    const latencies: number[] = [];
    const metrics: TaskMetrics = { ...noopMetrics, queueLatency: (ms) => latencies.push(ms) };

    const response = await executor.worker([task], { metrics }).processBatch(batch);

    // The takeover started only once both others had ended.
    expect(response.batchItemFailures).toEqual([]);
    expect(trace).toHaveLength(6);
    expect(trace.slice(4)).toEqual(['start 1', 'end 1']);
    expect((await executor.client().get(ids[0] ?? ''))?.attempt).toBe(2);
    expect(latencies).toHaveLength(3); // one per message, the deferred one included
  });

  it('runs the lost-lease tasks of a batch one at a time, after the others', async () => {
    // Four tasks; a crashed worker had claimed 1, 2 and 3.
    const { task, trace } = tracedTask();
    const ids = await enqueueTraced(task, 4, [1, 2, 3]);
    const batch = await executor.receive({ visibilityTimeout: 30 });
    expect(batch).toHaveLength(4);

    const response = await executor.worker([task]).processBatch(batch);

    expect(response.batchItemFailures).toEqual([]);
    expect(trace.slice(0, 2)).toEqual(['start 4', 'end 4']);
    expect(trace).toHaveLength(8);
    expect(oneAtATime(trace)).toBe(true);
    const records = await Promise.all(ids.map((id) => executor.client().get(id)));
    expect(records.map((r) => `${r?.status}#${r?.attempt}`)).toEqual([
      'SUCCEEDED#2',
      'SUCCEEDED#2',
      'SUCCEEDED#2',
      'SUCCEEDED#1',
    ]);
  });

  it('counts a task the sweeper requeued and re-sent as a takeover', async () => {
    // A crashed worker's two tasks, requeued by the sweeper and sent again, and a
    // fresh third task.
    const { task, trace } = tracedTask();
    const ids = await enqueueTraced(task, 2, [1, 2]);
    const report = await sweeper().run();
    expect(report).toMatchObject({ requeued: 2, sent: 2 });
    for (const id of ids)
      expect((await executor.client().get(id))?.status).toBe(TaskStatus.PENDING);
    await executor.client().enqueue(task, { n: 3 });
    const batch = await executor.receive({ visibilityTimeout: 30 });

    await executor.worker([task]).processBatch(batch);

    // The fresh task ran first; the requeued ones after it, one at a time.
    expect(trace.slice(0, 2)).toEqual(['start 3', 'end 3']);
    expect(trace).toHaveLength(6);
    expect(oneAtATime(trace)).toBe(true);
  });

  it('acknowledges an expired final attempt that the sweeper declared DEAD first', async () => {
    // Arrange: the sweeper kills the task between the worker's read and its own kill.
    const once = defineTask('single-shot', {
      schema: z.object({}),
      retry: { maxAttempts: 1 },
      handler: () => undefined,
    });
    const client = executor.client();
    const { id, record } = await client.enqueue(once, {});
    await loseLease(record);
    const { dynamodb } = testClients();
    let raced = false;
    dynamodb.middlewareStack.add(
      (next, context) => async (args) => {
        if (!raced && context.commandName?.startsWith('Update')) {
          raced = true;
          await sweeper().run();
        }
        return next(args);
      },
      { step: 'initialize', name: 'sweepFirst' },
    );
    const batch = await executor.receive({ visibilityTimeout: 30 });

    // Act
    const response = await executor.worker([once], { dynamodb }).processBatch(batch);

    // Assert
    expect(raced).toBe(true);
    expect(response.batchItemFailures).toEqual([]);
    const dead = await client.get(id);
    expect(dead?.status).toBe(TaskStatus.DEAD);
    expect(dead?.history.filter((h) => h.event === AuditEvent.DEAD)).toHaveLength(1);
    expect(dead?.history.at(-1)?.workerId).toBe('sweeper');
  });
});
