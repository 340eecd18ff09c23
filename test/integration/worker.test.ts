import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { runEventSourceMapping } from '../../src/local/event-source-mapping.js';
import type { TaskMetrics, TaskOutcome } from '../../src/observability/metrics.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import {
  eventually,
  recordingLogger,
  setupExecutor,
  silentLogger,
  type TestExecutor,
} from '../helpers/executor.js';

let executor: TestExecutor;
let stopPolling: (() => Promise<void>) | undefined;

beforeAll(async () => {
  executor = await setupExecutor();
});

afterEach(async () => {
  await stopPolling?.();
  stopPolling = undefined;
});

/** Runs the worker as Lambda would: the local event source mapping invokes its handler. */
function startLambda(handler: Parameters<typeof runEventSourceMapping>[0]['handler']): void {
  const controller = new AbortController();
  const done = runEventSourceMapping({
    sqs: executor.clients.sqs,
    queueUrl: executor.queueUrl,
    handler,
    signal: controller.signal,
    logger: silentLogger,
    maximumConcurrency: 2,
    waitTimeSeconds: 1,
    timeoutSeconds: 10,
  });
  stopPolling = async () => {
    controller.abort();
    await done;
  };
}

describe('worker ordering', () => {
  it('runs 100 tasks over 5 keys in strict enqueue order within each key', async () => {
    // Arrange
    const starts: { key: string; seq: number }[] = [];
    const step = defineTask('ordered-step', {
      schema: z.object({ key: z.string(), seq: z.number().int() }),
      handler: async ({ key, seq }) => {
        starts.push({ key, seq });
        await new Promise((r) => setTimeout(r, Math.random() * 5));
      },
    });
    const client = executor.client();
    const entries = Array.from({ length: 100 }, (_, i) => {
      const key = `key-${i % 5}`;
      return {
        task: step,
        payload: { key, seq: Math.floor(i / 5) },
        options: { orderingKey: key },
      };
    });

    // Act
    const results = await client.enqueueBatch(entries);
    startLambda(executor.worker([step]).lambdaHandler);
    await eventually(() => starts.length >= 100, 60_000);

    // Assert
    expect(results.every((r) => r.ok && r.sent)).toBe(true);
    for (let k = 0; k < 5; k++) {
      const seqs = starts.filter((s) => s.key === `key-${k}`).map((s) => s.seq);
      expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i));
    }
  });
});

describe('worker retries', () => {
  it('ends SUCCEEDED at attempt 3 after failing twice, with every attempt in the history', async () => {
    // Arrange
    let calls = 0;
    const flaky = defineTask('flaky-twice', {
      schema: z.object({}),
      retry: { maxAttempts: 5, baseDelayMs: 10 },
      handler: async (_p, ctx) => {
        calls += 1;
        if (ctx.attempt < 3) throw new Error(`boom ${ctx.attempt}`);
        return { attempt: ctx.attempt };
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(flaky, {});

    // Act
    startLambda(executor.worker([flaky]).lambdaHandler);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    // Assert
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.attempt).toBe(3);
    expect(calls).toBe(3);
    expect(record.result).toEqual({ attempt: 3 });
    const claims = record.history.filter((h) => h.event === AuditEvent.CLAIMED);
    expect(claims.map((h) => h.attempt)).toEqual([1, 2, 3]);
    const retries = record.history.filter((h) => h.event === AuditEvent.RETRY_SCHEDULED);
    expect(retries.map((h) => h.detail?.startsWith('Error: boom'))).toEqual([true, true]);
    expect(record.history.filter((h) => h.event === AuditEvent.SUCCEEDED)).toHaveLength(1);
  });

  it('declares a task DEAD after exactly maxAttempts runs when it always fails', async () => {
    let calls = 0;
    const doomed = defineTask('always-fails', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 10 },
      handler: async () => {
        calls += 1;
        throw new Error('still broken');
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(doomed, {});

    startLambda(executor.worker([doomed]).lambdaHandler);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.DEAD);
    expect(calls).toBe(3);
    expect(record.attempt).toBe(3);
    expect(record.deadReason).toContain('failed 3 of 3 attempts');
    expect(record.deadReason).toContain('still broken');
    expect(record.lastError).toEqual({ name: 'Error', message: 'still broken' });
  });

  it('skips retries when the handler throws a PermanentError', async () => {
    let calls = 0;
    const refuse = defineTask('refuses', {
      schema: z.object({}),
      handler: async () => {
        calls += 1;
        throw new PermanentError('card declined');
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(refuse, {});

    startLambda(executor.worker([refuse]).lambdaHandler);
    const record = await client.wait(id, { timeoutMs: 20_000 });

    expect(record.status).toBe(TaskStatus.DEAD);
    expect(calls).toBe(1);
    expect(record.deadReason).toBe('permanent error: card declined');
  });

  it('cuts off a handler that never settles at its timeout', async () => {
    let aborted = false;
    const hang = defineTask('hangs', {
      schema: z.object({}),
      timeout: 300,
      retry: { maxAttempts: 1 },
      handler: (_p, ctx) =>
        new Promise<never>(() => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    });
    const client = executor.client();
    const { id } = await client.enqueue(hang, {});

    startLambda(executor.worker([hang]).lambdaHandler);
    const record = await client.wait(id, { timeoutMs: 20_000 });

    expect(record.status).toBe(TaskStatus.DEAD);
    expect(record.lastError?.name).toBe('TaskTimeoutError');
    expect(aborted).toBe(true);
  });
});

describe('worker metrics', () => {
  /** A TaskMetrics that keeps everything it is given. */
  function recordingMetrics() {
    const counts: Partial<Record<TaskOutcome, number>> = {};
    const recorded = { counts, durations: [] as number[], latencies: [] as number[], flushes: 0 };
    const metrics: TaskMetrics = {
      count: (outcome, n = 1) => {
        counts[outcome] = (counts[outcome] ?? 0) + n;
      },
      duration: (ms) => recorded.durations.push(ms),
      queueLatency: (ms) => recorded.latencies.push(ms),
      flush: () => {
        recorded.flushes += 1;
      },
    };
    return { metrics, recorded };
  }

  it('counts each outcome once, times every run, and flushes once per invocation', async () => {
    // Arrange: one task succeeds, one fails once then succeeds, one fails for good.
    const ok = defineTask('metrics-ok', { schema: z.object({}), handler: async () => 'done' });
    const flaky = defineTask('metrics-flaky', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 10 },
      handler: async (_p, ctx) => {
        if (ctx.attempt === 1) throw new Error('once');
      },
    });
    const refuse = defineTask('metrics-refuse', {
      schema: z.object({}),
      handler: async () => {
        throw new PermanentError('no');
      },
    });
    const { metrics, recorded } = recordingMetrics();
    const handler = executor.worker([ok, flaky, refuse], { metrics }).lambdaHandler;
    let invocations = 0;
    const client = executor.client();
    const ids = await Promise.all([
      client.enqueue(ok, {}),
      client.enqueue(flaky, {}),
      client.enqueue(refuse, {}),
    ]);

    // Act
    startLambda(async (event, context) => {
      invocations += 1;
      return handler(event, context);
    });
    const records = await Promise.all(ids.map(({ id }) => client.wait(id, { timeoutMs: 30_000 })));
    await stopPolling?.();
    stopPolling = undefined;

    // Assert
    expect(records.map((r) => r.status)).toEqual([
      TaskStatus.SUCCEEDED,
      TaskStatus.SUCCEEDED,
      TaskStatus.DEAD,
    ]);
    expect(recorded.counts).toEqual({ started: 4, succeeded: 2, failed: 2, retried: 1, dead: 1 });
    expect(recorded.durations).toHaveLength(4);
    // First receives only: the retried message's second receive is not a queue wait.
    expect(recorded.latencies).toHaveLength(3);
    for (const ms of [...recorded.durations, ...recorded.latencies]) {
      expect(ms).toBeGreaterThanOrEqual(0);
    }
    expect(recorded.flushes).toBe(invocations);
  });
});

describe('worker duplicate delivery', () => {
  it('runs the handler once and writes the terminal record once when a message arrives twice', async () => {
    // Arrange
    let calls = 0;
    const once = defineTask('once', {
      schema: z.object({ n: z.number() }),
      handler: async ({ n }) => {
        calls += 1;
        return n;
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(once, { n: 7 });
    const [message] = await executor.receive({ visibilityTimeout: 30 });
    if (message === undefined) throw new Error('expected a message');
    const logger = recordingLogger();
    const worker = executor.worker([once], { logger });

    // Act: the same SQS record is delivered, then delivered again.
    const first = await worker.processBatch([message]);
    const second = await worker.processBatch([message]);

    // Assert
    expect(first.batchItemFailures).toEqual([]);
    expect(second.batchItemFailures).toEqual([]);
    expect(calls).toBe(1);
    const record = await client.get(id);
    expect(record?.status).toBe(TaskStatus.SUCCEEDED);
    expect(record?.history.filter((h) => h.event === AuditEvent.SUCCEEDED)).toHaveLength(1);
    expect(
      logger.lines.filter((l) => l.attributes.event === AuditEvent.DUPLICATE_DROPPED),
    ).toHaveLength(1);
  });

  it('returns a message for a task leased by a live worker without running it', async () => {
    // Arrange: worker A is mid-run when a duplicate of its message reaches worker B.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let calls = 0;
    const slow = defineTask('slow', {
      schema: z.object({}),
      handler: async () => {
        calls += 1;
        await gate;
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(slow, {});
    const [message] = await executor.receive({ visibilityTimeout: 30 });
    if (message === undefined) throw new Error('expected a message');
    const a = executor.worker([slow], { workerId: 'worker-a' });
    const b = executor.worker([slow], { workerId: 'worker-b' });
    const running = a.processBatch([message]);
    await eventually(async () => (await client.get(id))?.status === TaskStatus.RUNNING);

    // Act
    const duplicate = await b.processBatch([message]);
    release();
    const original = await running;

    // Assert
    expect(duplicate.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    expect(original.batchItemFailures).toEqual([]);
    expect(calls).toBe(1);
    expect((await client.get(id))?.status).toBe(TaskStatus.SUCCEEDED);
  });
});

describe('worker fencing', () => {
  it('rejects a stale worker after its lease expired and another attempt took over', async () => {
    // Arrange: A claims and stalls; B sees the lease expired (its clock is an hour ahead).
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const fenced = defineTask('fenced', {
      schema: z.object({}),
      handler: async (_p, ctx) => {
        if (ctx.attempt === 1) await gate;
        return { by: ctx.attempt };
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(fenced, {});
    const [message] = await executor.receive({ visibilityTimeout: 30 });
    if (message === undefined) throw new Error('expected a message');
    const logger = recordingLogger();
    const a = executor.worker([fenced], { workerId: 'worker-a', logger });
    const b = executor.worker([fenced], {
      workerId: 'worker-b',
      clock: () => Date.now() + 3_600_000,
    });
    const stalled = a.processBatch([message]);
    await eventually(async () => (await client.get(id))?.status === TaskStatus.RUNNING);

    // Act
    const takeover = await b.processBatch([message]);
    release();
    const late = await stalled;

    // Assert
    expect(takeover.batchItemFailures).toEqual([]);
    // Refused, the stale worker hands its message back rather than acknowledging it.
    expect(late.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    const record = await client.get(id);
    expect(record?.status).toBe(TaskStatus.SUCCEEDED);
    expect(record?.attempt).toBe(2);
    expect(record?.result).toEqual({ by: 2 });
    expect(record?.workerId).toBe('worker-b');
    expect(record?.history.filter((h) => h.event === AuditEvent.SUCCEEDED)).toHaveLength(1);
    const stale = logger.lines.filter((l) => l.attributes.event === AuditEvent.STALE_DROPPED);
    expect(stale).toHaveLength(1);
    expect(String(stale[0]?.attributes.detail)).toContain('Cannot complete task');
  });
});

describe('worker poison and bad input', () => {
  it('declares an unknown task type DEAD at once, with no retries', async () => {
    const known = defineTask('known', { schema: z.object({}), handler: () => undefined });
    const unknown = defineTask('not-deployed', { schema: z.object({}), handler: () => undefined });
    const client = executor.client();
    const { id } = await client.enqueue(unknown, {});

    startLambda(executor.worker([known]).lambdaHandler);
    const record = await client.wait(id, { timeoutMs: 20_000 });

    expect(record.status).toBe(TaskStatus.DEAD);
    expect(record.attempt).toBe(1);
    expect(record.deadReason).toContain("Unknown task type 'not-deployed'");
    expect(record.lastError?.name).toBe('UnknownTaskTypeError');
  });

  it('declares a payload the worker rejects DEAD at once, naming the path, never the value', async () => {
    // The producer's schema is looser than the worker's: the worker validates again.
    const producerSide = defineTask('versioned', {
      schema: z.object({ n: z.number() }),
      handler: () => undefined,
    });
    let calls = 0;
    const workerSide = defineTask('versioned', {
      // A schema whose message quotes what it received, as some libraries' messages do.
      schema: z.object({
        n: z.number().min(10, { error: (issue) => `too small: ${String(issue.input)}` }),
      }),
      handler: () => {
        calls += 1;
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(producerSide, { n: -4242 });

    startLambda(executor.worker([workerSide]).lambdaHandler);
    const record = await client.wait(id, { timeoutMs: 20_000 });

    expect(record.status).toBe(TaskStatus.DEAD);
    expect(calls).toBe(0);
    expect(record.attempt).toBe(1);
    expect(record.deadReason).toMatch(
      /^invalid payload \(ValidationError\) at payload\.n; payload hash [0-9a-f]{16}$/,
    );
    expect(JSON.stringify(record.history)).not.toContain('-4242');
    expect(record.lastError?.message).not.toContain('-4242');
  });

  it('acknowledges a message with no task record without running anything, and audits it', async () => {
    const task = defineTask('orphan', { schema: z.object({}), handler: () => undefined });
    const logger = recordingLogger();
    const worker = executor.worker([task], { logger });
    const forged = await forgedRecord('{"tasklane":1,"id":"does-not-exist","type":"orphan"}');
    const garbage = await forgedRecord('not json at all');

    const response = await worker.processBatch([forged, garbage]);

    expect(response.batchItemFailures).toEqual([]);
    const rejected = logger.lines.filter((l) => l.attributes.event === AuditEvent.MESSAGE_REJECTED);
    // Different message groups run concurrently, so the two lines may come in either order.
    expect(rejected.map((l) => String(l.attributes.detail)).sort()).toEqual([
      expect.stringContaining('body is not JSON'),
      'no task record has this id',
    ]);
  });
});

describe('worker FIFO partial failure', () => {
  it('reports every later message of a failed group as failed without running it', async () => {
    // Arrange: three tasks on one key, the first fails its first attempt.
    const ran: number[] = [];
    const step = defineTask('fifo-step', {
      schema: z.object({ seq: z.number() }),
      retry: { maxAttempts: 3, baseDelayMs: 10 },
      handler: ({ seq }, ctx) => {
        ran.push(seq);
        if (seq === 0 && ctx.attempt === 1) throw new Error('first try fails');
      },
    });
    const other = defineTask('fifo-other', { schema: z.object({}), handler: () => undefined });
    const client = executor.client();
    await client.enqueueBatch([
      { task: step, payload: { seq: 0 }, options: { orderingKey: 'g' } },
      { task: step, payload: { seq: 1 }, options: { orderingKey: 'g' } },
      { task: step, payload: { seq: 2 }, options: { orderingKey: 'g' } },
      { task: other, payload: {}, options: { orderingKey: 'h' } },
    ]);
    const batch = await executor.receive({ visibilityTimeout: 30 });

    // Act
    const response = await executor.worker([step, other]).processBatch(batch);

    // Assert
    const groupG = batch.filter((r) => r.attributes.MessageGroupId === 'g').map((r) => r.messageId);
    expect(groupG).toHaveLength(3);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(groupG);
    expect(ran).toEqual([0]);
  });
});

async function forgedRecord(body: string) {
  const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
  await executor.clients.sqs.send(
    new SendMessageCommand({
      QueueUrl: executor.queueUrl,
      MessageBody: body,
      MessageGroupId: `forged-${Math.random()}`,
      MessageDeduplicationId: `${Math.random()}`,
    }),
  );
  const [record] = await executor.receive({ visibilityTimeout: 30 });
  if (record === undefined) throw new Error('expected the forged message');
  return record;
}
