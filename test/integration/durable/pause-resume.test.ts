import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type ClientView, pauseDeps } from '../../../src/client/client-operations.js';
import { resumeTask } from '../../../src/client/pause.js';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { TransitionRejectedError } from '../../../src/core/errors.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';
import { eventually } from '../../helpers/executor.js';
import { heldHolds } from '../../helpers/held-holds.js';

useDurableExecutor();

describe('client.pause and client.resume', () => {
  it('keeps a PENDING task from running until it is resumed', async () => {
    const runs: string[] = [];
    const task = defineTask('durable.pause.pending', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        runs.push(ctx.taskId);
        return 'ran';
      },
    });
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const paused = await client.pause(id, 'hold on');
    runWorker(task);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const still = await client.get(id);
    const resumed = await client.resume(id);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(paused.status).toBe(TaskStatus.PAUSED);
    expect(still?.status).toBe(TaskStatus.PAUSED);
    expect(resumed.status).toBe(TaskStatus.PENDING);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(runs).toEqual([id]);
    expect(record.attempt).toBe(1);
    expect(record.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.PAUSED,
      AuditEvent.RESUMED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });

  it('holds a paused keyed task’s key: the key’s later task waits until the resume', async () => {
    const order: string[] = [];
    const task = defineTask('durable.pause.keyed', {
      schema: z.object({ name: z.string() }),
      handler: async ({ name }) => {
        order.push(name);
      },
    });
    const client = executor.client();

    const first = await client.enqueue(task, { name: 'first' }, { orderingKey: 'pause-key' });
    const second = await client.enqueue(task, { name: 'second' }, { orderingKey: 'pause-key' });
    await client.pause(first.id);
    runWorker(task);
    await eventually(async () => (await client.get(first.id))?.heldMessage !== undefined);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const before = [...order];
    await client.resume(first.id);
    await client.wait(second.id, { timeoutMs: 30_000 });

    expect(before).toEqual([]);
    expect(order).toEqual(['first', 'second']);
    expect((await client.get(first.id))?.status).toBe(TaskStatus.SUCCEEDED);
  });

  it('pauses and resumes a whole ordering key, its tasks then running in order', async () => {
    const order: string[] = [];
    const task = defineTask('durable.pause.key', {
      schema: z.object({ n: z.number() }),
      handler: async ({ n }) => {
        order.push(`t${n}`);
      },
    });
    const client = executor.client();

    const tasks = [];
    for (const n of [1, 2, 3]) {
      tasks.push(await client.enqueue(task, { n }, { orderingKey: 'whole-key' }));
    }
    const paused = await client.pause({ orderingKey: 'whole-key' }, 'maintenance');
    runWorker(task);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const before = [...order];
    const resumed = await client.resume({ orderingKey: 'whole-key' });
    await client.wait(tasks[2]?.id ?? '', { timeoutMs: 30_000 });

    expect(paused.done).toEqual(tasks.map((t) => t.id));
    expect(before).toEqual([]);
    expect(resumed.done).toEqual(tasks.map((t) => t.id));
    expect(order).toEqual(['t1', 't2', 't3']);
    await expect(client.pause({ orderingKey: '' })).rejects.toThrow(/non-empty ordering key/);
  });

  it('pauses a sleeping task, and resumes it still sleeping, to wake on time', async () => {
    const task = defineTask('durable.pause.sleeping', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.sleep('nap', 3_000);
        return 'woken';
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    const paused = await client.pause(id);
    const resumed = await client.resume(id);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(paused.status).toBe(TaskStatus.PAUSED);
    expect(resumed.status).toBe(TaskStatus.SUSPENDED);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toBe('woken');
    expect(record.attempt).toBe(1);
  });

  it('wakes a task paused at a signal wait on its resume when the signal came while it was paused', async () => {
    const task = defineTask('durable.pause.signal-paused', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.waitForSignal('approve', { timeoutMs: 600_000 }),
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    await client.pause(id);
    const sent = await client.signal(id, 'approve', { ok: true });
    const resumed = await client.resume(id);
    const record = await client.wait(id, { timeoutMs: 20_000 });

    expect(sent).toMatchObject({ woke: false });
    expect(resumed).toMatchObject({ status: TaskStatus.SUSPENDED, woken: true });
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ received: true, data: { ok: true } });
  });

  it('wakes a task paused at a signal wait when the signal came between the resume’s read and its write', async () => {
    const task = defineTask('durable.pause.signal-race', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.waitForSignal('approve', { timeoutMs: 600_000 }),
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    await client.pause(id);
    // The resume reads the PAUSED task; the signal lands (stored, no wake: it is paused) before
    // the resume writes. The resume must not put it back to sleep past the signal.
    const deps = await pauseDeps((client as unknown as { view: ClientView }).view);
    let reads = 0;
    const get = async (taskId: string) => {
      const seen = await deps.get(taskId);
      reads += 1;
      if (reads === 1) await client.signal(id, 'approve', { ok: true });
      return seen;
    };
    const resumed = await resumeTask(id, { ...deps, get });
    const record = await client.wait(id, { timeoutMs: 20_000 });

    expect(resumed.status).toBe(TaskStatus.SUSPENDED);
    expect(resumed.woken).toBe(true);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ received: true, data: { ok: true } });
  });

  it('ends a RUNNING task PAUSED at its next step, no attempt spent, and resumes past its steps', async () => {
    const effects: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const task = defineTask('durable.pause.running', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.step('first', () => effects.push('first'));
        await gate;
        await ctx.heartbeat();
        await ctx.step('second', () => effects.push('second'));
        return 'done';
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => effects.length === 1);
    const requested = await client.pause(id);
    release();
    await eventually(async () => (await client.get(id))?.status === TaskStatus.PAUSED);
    const paused = await client.get(id);
    await client.resume(id);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(requested.status).toBe(TaskStatus.RUNNING);
    expect(requested.pauseRequested).toBe(true);
    expect(paused?.attempt).toBe(0);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(effects).toEqual(['first', 'second']);
    expect(record.attempt).toBe(1);
  });

  it('runs a keyed task resumed while the hold of its pause waited to be sent', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const task = defineTask('durable.pause.hold-race', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.step('first', () => 1);
        await gate;
        await ctx.heartbeat();
        await ctx.step('second', () => 2);
        return 'done';
      },
    });
    // The worker's holds wait until the test opens them.
    const holds = heldHolds();
    runWorker(task, { sqs: holds.sqs });
    const client = executor.client();

    const { id } = await client.enqueue(task, {}, { orderingKey: 'hold-race' });
    await eventually(async () => (await client.get(id))?.status === TaskStatus.RUNNING);
    await client.pause(id);
    release();
    await eventually(async () => (await client.get(id))?.status === TaskStatus.PAUSED);
    // Act: the resume shows the message before the pause's hold is sent, which hides it.
    await client.resume(id);
    holds.open();
    const record = await client.wait(id, { timeoutMs: 20_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toBe('done');
  });

  it('refuses to pause a finished task, and to resume one that is not paused', async () => {
    const task = defineTask('durable.pause.finished', {
      schema: z.object({}),
      handler: async () => 'done',
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await client.wait(id, { timeoutMs: 30_000 });

    await expect(client.pause(id)).rejects.toBeInstanceOf(TransitionRejectedError);
    await expect(client.resume(id)).rejects.toBeInstanceOf(TransitionRejectedError);
  });
});
