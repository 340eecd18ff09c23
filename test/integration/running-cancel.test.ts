import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { TaskCancelledError, TransitionRejectedError } from '../../src/core/errors.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { eventually } from '../helpers/executor.js';
import { executor, runWorker, useWorkerHarness } from '../helpers/worker-harness.js';

useWorkerHarness();

/** Ids the worker's onCancelled hook was called for. */
let cancelledEvents: string[] = [];

/** Polls with a worker whose lease is `leaseDurationMs`: it beats every third of it. */
function startWorker(task: ReturnType<typeof defineTask>, leaseDurationMs: number): void {
  cancelledEvents = [];
  const onCancelled = (detail: { taskId: string }) => {
    cancelledEvents.push(detail.taskId);
  };
  runWorker(task, { leaseDurationMs, onCancelled });
}

describe('TaskClient.cancel (a RUNNING task)', () => {
  it('marks the task, and its worker aborts the signal and ends it CANCELLED', async () => {
    let started = false;
    let reason: unknown;
    const task = defineTask('cancel.honours', {
      schema: z.object({}),
      timeout: 20_000,
      retry: { maxAttempts: 3 },
      handler: (_payload, ctx) =>
        new Promise((_resolve, reject) => {
          started = true;
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            reject(ctx.signal.reason);
          });
        }),
    });
    startWorker(task, 3000);
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    await eventually(() => started);

    const requested = await client.cancel(id, 'no longer needed');
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(requested).toMatchObject({ status: TaskStatus.RUNNING, cancelRequested: true });
    expect(reason).toBeInstanceOf(TaskCancelledError);
    expect(record).toMatchObject({ status: TaskStatus.CANCELLED, attempt: 1 });
    expect(record.cancelRequested).toBe(false);
    expect(record.cancelRequestedAt).toBe(requested.cancelRequestedAt);
    expect(record.leaseToken).toBeUndefined();
    expect(record.history.slice(-2)).toMatchObject([
      {
        event: AuditEvent.CANCEL_REQUESTED,
        status: TaskStatus.RUNNING,
        detail: 'no longer needed',
      },
      { event: AuditEvent.CANCELLED, status: TaskStatus.CANCELLED, attempt: 1 },
    ]);
    expect(record.history.at(-1)?.detail).toContain('the handler stopped (TaskCancelledError');
    await eventually(() => cancelledEvents.includes(id));
  });

  it('cuts off a handler that ignores the signal at its timeout, then ends it CANCELLED', async () => {
    let started = 0;
    const task = defineTask('cancel.ignores', {
      schema: z.object({}),
      timeout: 4000,
      retry: { maxAttempts: 3 },
      handler: async () => {
        started = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 6000));
        return 'finished anyway';
      },
    });
    startWorker(task, 1500);
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    await eventually(() => started > 0);

    await client.cancel(id);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record).toMatchObject({ status: TaskStatus.CANCELLED, attempt: 1 });
    expect(record.result).toBeUndefined();
    // The timeout's timer starts just before the handler's first line reads the clock, and a
    // timer may fire a millisecond early by Date.now(): a few ms of slack, never a second.
    expect(record.finishedAt).toBeGreaterThanOrEqual(started + 4000 - 5);
    expect(record.history.at(-1)?.detail).toContain('cut off at its timeout');
  });

  it('asks once: a second cancel returns the marked record and writes nothing', async () => {
    const { id } = await executor
      .client()
      .enqueue(defineTask('cancel.twice', { schema: z.object({}), handler: () => 1 }), {});
    const seen = await executor.store.get(id);
    await executor.store.claim(seen as NonNullable<typeof seen>, {
      workerId: 'w',
      leaseMs: 60_000,
    });
    const client = executor.client();

    const first = await client.cancel(id);
    const second = await client.cancel(id);

    expect(second.cancelRequestedAt).toBe(first.cancelRequestedAt);
    expect(second.history.filter((h) => h.event === AuditEvent.CANCEL_REQUESTED)).toHaveLength(1);
  });

  it('refuses a finished task as before, saying it has finished', async () => {
    const task = defineTask('cancel.finished', { schema: z.object({}), handler: () => 'ok' });
    startWorker(task, 120_000);
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    await client.wait(id, { timeoutMs: 30_000 });

    const error = await client.cancel(id).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TransitionRejectedError);
    expect((error as TransitionRejectedError).current?.status).toBe(TaskStatus.SUCCEEDED);
  });
});

describe('the worker and a cancel request', () => {
  it('ends a task CANCELLED unrun when its request was made before the next attempt', async () => {
    let runs = 0;
    const task = defineTask('cancel.before-attempt', {
      schema: z.object({}),
      handler: () => {
        runs++;
      },
    });
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    const seen = await executor.store.get(id);
    // A worker claimed it and crashed: its lease has run out, its message is still queued.
    await executor.store.claim(seen as NonNullable<typeof seen>, { workerId: 'gone', leaseMs: 1 });
    await client.cancel(id);
    await new Promise((resolve) => setTimeout(resolve, 50));

    await executor.drain(executor.worker([task]));
    const record = await client.get(id);

    expect(runs).toBe(0);
    expect(record).toMatchObject({ status: TaskStatus.CANCELLED, attempt: 2 });
    expect(record?.history.at(-1)?.detail).toBe(
      'cancel requested before attempt 2 started; not run',
    );
  });
});

describe('TaskStore.cancelRunning', () => {
  it('refuses a stale lease holder after a takeover, and lets the new holder end the task', async () => {
    const task = defineTask('cancel.takeover', { schema: z.object({}), handler: () => 1 });
    const { id } = await executor.client().enqueue(task, {});
    const queued = await executor.store.get(id);
    const stale = await executor.store.claim(queued as NonNullable<typeof queued>, {
      workerId: 'stale',
      leaseMs: 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const fresh = await executor.store.claim(stale.record, { workerId: 'fresh', leaseMs: 60_000 });
    await executor.store.feature(RecordWrites).requestCancel(fresh.record);

    const refused = await executor.store
      .cancelRunning(stale.lease, 'stale')
      .catch((e: unknown) => e);
    const current = await executor.store.get(id);
    const ended = await executor.store.cancelRunning(fresh.lease, 'fresh');

    expect(refused).toMatchObject({ code: 'LEASE_LOST' });
    expect(current).toMatchObject({
      status: TaskStatus.RUNNING,
      workerId: 'fresh',
      cancelRequested: true,
    });
    expect(ended).toMatchObject({ status: TaskStatus.CANCELLED, attempt: 2 });
    expect(ended.history.at(-1)).toMatchObject({ workerId: 'fresh', detail: 'fresh' });
  });

  it('refuses a holder whose task has no cancel request', async () => {
    const task = defineTask('cancel.unasked', { schema: z.object({}), handler: () => 1 });
    const { id } = await executor.client().enqueue(task, {});
    const queued = await executor.store.get(id);
    const { lease } = await executor.store.claim(queued as NonNullable<typeof queued>, {
      workerId: 'w',
      leaseMs: 60_000,
    });

    const refused = await executor.store.cancelRunning(lease, 'unasked').catch((e: unknown) => e);

    expect(refused).toMatchObject({ code: 'LEASE_LOST' });
    expect((await executor.store.get(id))?.status).toBe(TaskStatus.RUNNING);
  });
});
