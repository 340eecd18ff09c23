import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import {
  IdempotencyConflictError,
  PayloadTooLargeError,
  TaskNotFoundError,
  TransitionRejectedError,
  ValidationError,
  WaitTimeoutError,
} from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { throttledSqs } from '../helpers/failing-commands.js';

const email = defineTask('send-email', {
  schema: z.object({ to: z.email(), subject: z.string().min(1) }),
  handler: () => undefined,
});

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** Counts SDK commands by name, through the client's middleware stack. */
function countCommands(client: {
  middlewareStack: { add: (...args: never[]) => void };
}): Map<string, number> {
  const counts = new Map<string, number>();
  const add = client.middlewareStack.add as (
    mw: (
      next: (a: unknown) => Promise<unknown>,
      ctx: { commandName?: string },
    ) => (a: unknown) => Promise<unknown>,
    opts: { step: 'initialize'; name: string },
  ) => void;
  add(
    (next, ctx) => (args) => {
      counts.set(ctx.commandName ?? '?', (counts.get(ctx.commandName ?? '?') ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: `count-${Math.random()}` },
  );
  return counts;
}

describe('TaskClient.enqueue', () => {
  it('creates one record and one message for the same id enqueued twice', async () => {
    const client = executor.client();
    const payload = { to: 'a@example.com', subject: 'hi' };

    const first = await client.enqueue(email, payload, { id: 'order-1' });
    const second = await client.enqueue(email, payload, { id: 'order-1' });

    expect(first).toMatchObject({ id: 'order-1', created: true, sent: true });
    expect(second).toMatchObject({ id: 'order-1', created: false, sent: true });
    expect(second.record.history.filter((h) => h.event === AuditEvent.SUBMITTED)).toHaveLength(1);
    expect(await executor.queueDepth()).toBe(1);
  });

  it('throws IdempotencyConflictError for the same id with another payload, carrying the existing task', async () => {
    const client = executor.client();
    await client.enqueue(email, { to: 'a@example.com', subject: 'hi' }, { id: 'order-2' });

    const attempt = client.enqueue(
      email,
      { to: 'b@example.com', subject: 'hi' },
      { id: 'order-2' },
    );

    await expect(attempt).rejects.toBeInstanceOf(IdempotencyConflictError);
    const error = (await attempt.catch((e: unknown) => e)) as IdempotencyConflictError;
    expect(error.existing.payload).toEqual({ subject: 'hi', to: 'a@example.com' });
    expect(await executor.queueDepth()).toBe(1);
  });

  it('rejects an invalid payload with every problem listed, and writes nothing', async () => {
    const client = executor.client();

    const attempt = client.enqueue(email, { to: 'not-an-email', subject: '' }, { id: 'has space' });

    const error = (await attempt.catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i) => i.path).sort()).toEqual([
      'options.id',
      'payload.subject',
      'payload.to',
    ]);
    expect(error.message).toContain('payload.to');
    expect(await executor.store.get('has space')).toBeUndefined();
    expect(await executor.queueDepth()).toBe(0);
  });

  it('rejects a payload above the size limit with PayloadTooLargeError', async () => {
    const client = executor.client({ maxPayloadBytes: 1024 });
    const subject = 'x'.repeat(2000);

    const error = (await client
      .enqueue(email, { to: 'a@example.com', subject })
      .catch((e: unknown) => e)) as PayloadTooLargeError;

    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error.limitBytes).toBe(1024);
    expect(error.sizeBytes).toBeGreaterThan(2000);
    expect(await executor.queueDepth()).toBe(0);
  });

  it('keeps the task PENDING (not lost) when a transient fault stops the send', async () => {
    // An SQS client whose SendMessage is throttled (a wrong queue URL, by contrast,
    // is a ConfigurationError: see configuration-errors.test.ts).
    const sqs = throttledSqs();
    const client = executor.client({ sqs });
    const payload = { to: 'a@example.com', subject: 'hi' };

    const result = await client.enqueue(email, payload, { id: 'outbox-1' });
    const stored = await client.get('outbox-1');
    const retried = await executor.client().enqueue(email, payload, { id: 'outbox-1' });

    expect(result).toMatchObject({ created: true, sent: false });
    expect(stored?.status).toBe(TaskStatus.PENDING);
    // A re-enqueue of the same id through a healthy client completes the send.
    expect(retried).toMatchObject({ created: false, sent: true });
    // Sent or not, the task stays PENDING until claimed (no write records the send, ADR 0020).
    expect(retried.record.status).toBe(TaskStatus.PENDING);
    expect(await executor.queueDepth()).toBe(1);
  });
});

describe('TaskClient.enqueueBatch', () => {
  it('sends 25 tasks with 3 SendMessageBatch calls and reports each entry', async () => {
    const client = executor.client();
    const counts = countCommands(executor.clients.sqs);
    const entries = Array.from({ length: 25 }, (_, i) => ({
      task: email,
      payload: { to: `u${i}@example.com`, subject: 's' },
    }));

    const results = await client.enqueueBatch(entries);

    expect(results).toHaveLength(25);
    expect(
      results.every((r) => r.ok && r.created && r.sent && r.record.status === TaskStatus.PENDING),
    ).toBe(true);
    expect(counts.get('SendMessageBatchCommand')).toBe(3);
    expect(counts.get('SendMessageCommand')).toBeUndefined();
    expect(await executor.queueDepth()).toBe(25);
  });

  it('never lets one bad entry affect the others', async () => {
    const client = executor.client();
    await client.enqueue(email, { to: 'a@example.com', subject: 'original' }, { id: 'taken' });

    const results = await client.enqueueBatch([
      { task: email, payload: { to: 'ok1@example.com', subject: 's' } },
      { task: email, payload: { to: 'broken', subject: 's' } },
      {
        task: email,
        payload: { to: 'a@example.com', subject: 'changed' },
        options: { id: 'taken' },
      },
      { task: email, payload: { to: 'ok2@example.com', subject: 's' } },
    ]);

    expect(results.map((r) => r.ok)).toEqual([true, false, false, true]);
    expect(results[1]?.ok === false && results[1].error).toBeInstanceOf(ValidationError);
    expect(results[2]?.ok === false && results[2].error).toBeInstanceOf(IdempotencyConflictError);
    expect(await executor.queueDepth()).toBe(3);
  });
});

describe('TaskClient.get, list and wait', () => {
  it('lists tasks by status across shards', async () => {
    const client = executor.client();
    const results = await client.enqueueBatch(
      Array.from({ length: 12 }, (_, i) => ({
        task: email,
        payload: { to: `l${i}@example.com`, subject: 's' },
      })),
    );

    const queued = await client.listByStatus(TaskStatus.PENDING);

    expect(queued.items.map((t) => t.id).sort()).toEqual(
      results.map((r) => (r.ok ? r.id : '')).sort(),
    );
    expect(queued.cursor).toBeUndefined();
    expect((await client.listByStatus(TaskStatus.RUNNING)).items).toEqual([]);
  });

  it('throws WaitTimeoutError with the last record when the task does not finish in time', async () => {
    const client = executor.client();
    const { id } = await client.enqueue(email, { to: 'a@example.com', subject: 'hi' });

    const error = (await client
      .wait(id, { timeoutMs: 300 })
      .catch((e: unknown) => e)) as WaitTimeoutError;

    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error.last?.status).toBe(TaskStatus.PENDING);
  });

  it('throws TaskNotFoundError when waiting for an unknown id', async () => {
    await expect(executor.client().wait('nope')).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});

describe('TaskClient.cancel', () => {
  it('cancels a queued task so the worker acknowledges it without running', async () => {
    let calls = 0;
    const task = defineTask('cancellable', {
      schema: z.object({}),
      handler: () => {
        calls += 1;
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(task, {});

    const cancelled = await client.cancel(id, 'changed my mind');
    const batch = await executor.receive();
    const response = await executor.worker([task]).processBatch(batch);

    expect(cancelled.status).toBe(TaskStatus.CANCELLED);
    expect(cancelled.history.at(-1)).toMatchObject({
      event: AuditEvent.CANCELLED,
      detail: 'changed my mind',
    });
    expect(response.batchItemFailures).toEqual([]);
    expect(calls).toBe(0);
    expect((await client.get(id))?.status).toBe(TaskStatus.CANCELLED);
  });

  it('refuses to cancel a finished task, saying what state it is in', async () => {
    const task = defineTask('quick', { schema: z.object({}), handler: () => 'done' });
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    await executor.worker([task]).processBatch(await executor.receive());

    const error = (await client.cancel(id).catch((e: unknown) => e)) as TransitionRejectedError;

    expect(error).toBeInstanceOf(TransitionRejectedError);
    expect(error.current?.status).toBe(TaskStatus.SUCCEEDED);
    expect(error.message).toContain('SUCCEEDED');
  });

  it('throws TaskNotFoundError for an unknown id', async () => {
    await expect(executor.client().cancel('nope')).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});
