import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import {
  PermanentError,
  TaskNotFoundError,
  TransitionRejectedError,
  ValidationError,
} from '../../../src/core/errors.js';
import { provisionPayloadBucket } from '../../../src/local/payload-bucket.js';
import { signalWrites } from '../../../src/store/signal-writes.js';
import { SignalStore } from '../../../src/store/signals.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { testS3, uniqueName } from '../../helpers/aws.js';
import { executor, runWorker, stopWorker, useDurableExecutor } from '../../helpers/durable.js';
import { eventually } from '../../helpers/executor.js';

useDurableExecutor();

const approval = z.object({ ok: z.boolean() });

describe('ctx.waitForSignal and client.signal', () => {
  it('suspends until the signal comes, wakes on it, and returns its data', async () => {
    const task = defineTask('durable.signal.wait', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        const outcome = await ctx.waitForSignal('approve', { timeoutMs: 60_000, schema: approval });
        return { outcome, attempt: ctx.attempt };
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    const waiting = await client.get(id);
    const sent = await client.signal(id, 'approve', { ok: true });
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(waiting?.wait).toMatchObject({ kind: 'signal', name: 'approve', step: 0 });
    expect(sent).toMatchObject({ taskId: id, name: 'approve', seq: 0, woke: true });
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ outcome: { received: true, data: { ok: true } }, attempt: 1 });
    expect(record.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.SUSPENDED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });

  it('keeps a signal sent before the wait, and consumes signals of one name in order, one per wait', async () => {
    const task = defineTask('durable.signal.early', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.sleep('first', 2_000);
        const a = await ctx.waitForSignal('n', { timeoutMs: 60_000 });
        const b = await ctx.waitForSignal('n2', { timeoutMs: 60_000 });
        const c = await ctx.waitForSignal('n', { timeoutMs: 60_000 });
        return [a, b, c];
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    const first = await client.signal(id, 'n', 1);
    const second = await client.signal(id, 'n', 2);
    const other = await client.signal(id, 'n2', 'x');
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.deadReason ?? '').toBe('');
    expect([first.woke, second.woke, other.woke]).toEqual([false, false, false]);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual([
      { received: true, data: 1 },
      { received: true, data: 'x' },
      { received: true, data: 2 },
    ]);
    expect(record.attempt).toBe(1);
  });

  it('returns { received: false } once the timeout has passed', async () => {
    const task = defineTask('durable.signal.timeout', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.waitForSignal('never', { timeoutMs: 2_000 }),
    });
    runWorker(task);
    const client = executor.client();

    const started = Date.now();
    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ received: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(record.attempt).toBe(1);
  });

  it('wakes a keyed task, whose held message keeps its key, at once', async () => {
    const order: string[] = [];
    const task = defineTask('durable.signal.keyed', {
      schema: z.object({ name: z.string() }),
      handler: async ({ name }, ctx) => {
        order.push(`${name} start`);
        if (name === 'waiter') await ctx.waitForSignal('go', { timeoutMs: 600_000 });
        order.push(`${name} end`);
      },
    });
    runWorker(task);
    const client = executor.client();

    const waiter = await client.enqueue(task, { name: 'waiter' }, { orderingKey: 'signal-key' });
    const next = await client.enqueue(task, { name: 'next' }, { orderingKey: 'signal-key' });
    await eventually(async () => (await client.get(waiter.id))?.heldMessage !== undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = [...order];
    await client.signal(waiter.id, 'go');
    await client.wait(next.id, { timeoutMs: 20_000 });

    expect(before).toEqual(['waiter start']);
    expect(order).toEqual(['waiter start', 'waiter start', 'waiter end', 'next start', 'next end']);
  });

  it('refuses a signal to a finished task, an unknown id, or bad input, with typed errors', async () => {
    const task = defineTask('durable.signal.finished', {
      schema: z.object({}),
      handler: async () => 'done',
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await client.wait(id, { timeoutMs: 30_000 });

    await expect(client.signal(id, 'late', 1)).rejects.toBeInstanceOf(TransitionRejectedError);
    await expect(client.signal('no-such-task-id', 'x', 1)).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    // Above 4 KB without a payload bucket, and a name that is not one: nothing is written.
    const big = 'x'.repeat(5_000);
    await expect(client.signal(id, 'big', big)).rejects.toThrow(
      /expected at most 4096 bytes of JSON without a payload bucket, received 5002 bytes/,
    );
    await expect(client.signal(id, '', 1)).rejects.toBeInstanceOf(ValidationError);
  });

  it('goes with its task when the task is purged', async () => {
    const task = defineTask('durable.signal.purged', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.waitForSignal('go', { timeoutMs: 60_000 });
        throw new PermanentError('dies after the signal');
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    await client.signal(id, 'go', { n: 1 });
    await client.signal(id, 'unused', { n: 2 });
    const dead = await client.wait(id, { timeoutMs: 30_000 });
    const before = await executor.store.feature(SignalStore).window(dead, 0, 0);
    await client.purge({ status: TaskStatus.DEAD, olderThan: 0, ids: [id] });
    const after = await executor.store.feature(SignalStore).window(dead, 0, 0);

    expect(dead.status).toBe(TaskStatus.DEAD);
    expect([...before.keys()]).toEqual([0, 1]);
    expect(after.size).toBe(0);
    expect(await client.get(id)).toBeUndefined();
  });

  it('carries data above 4 KB through the payload bucket', async () => {
    const bucket = await provisionPayloadBucket(testS3(), uniqueName('signals'), 45);
    const task = defineTask('durable.signal.large', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.waitForSignal('doc', { timeoutMs: 60_000 }),
    });
    runWorker(task, { payloadBucket: bucket, s3: testS3() });
    const client = executor.client({ payloadBucket: bucket, s3: testS3() });
    const doc = { body: 'b'.repeat(10 * 1024) };

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    await client.signal(id, 'doc', doc);
    const record = await client.wait(id, { timeoutMs: 30_000 });
    const stored = await executor.store.feature(SignalStore).window(record, 0, 0);

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ received: true, data: doc });
    expect(stored.get(0)?.dataRef?.key).toMatch(/^signals\//);
    expect(stored.get(0)?.dataJson).toBeUndefined();
  });

  it('stores a signal sent again with the same signalId once', async () => {
    const task = defineTask('durable.signal.idempotent', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        const a = await ctx.waitForSignal('pay', { timeoutMs: 60_000 });
        const b = await ctx.waitForSignal('pay', { timeoutMs: 1_500 });
        return [a, b];
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    const first = await client.signal(id, 'pay', { amount: 5 }, { signalId: 'payment-77' });
    const retried = await client.signal(id, 'pay', { amount: 5 }, { signalId: 'payment-77' });
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(first.duplicate).toBe(false);
    expect(retried.duplicate).toBe(true);
    // Counted once, in the task's signal head; never on its item (ADR 0066).
    expect((await executor.store.feature(SignalStore).head(record))?.count).toBe(1);
    expect(record.signals).toBeUndefined();
    // The retry stored nothing: the second wait times out.
    expect(record.result).toEqual([{ received: true, data: { amount: 5 } }, { received: false }]);
  });

  it('wakes the task again when a send stored its signal but died before the wake, and is retried', async () => {
    const task = defineTask('durable.signal.lost-wake', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.waitForSignal('pay', { timeoutMs: 120_000 }),
    });
    runWorker(task);
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    // The worker stops once its batch ended (the hold sent and checked after, ADR 0067).
    await stopWorker();
    // Arrange: the first send's write, without its wake (the sender's process died between).
    const waiting = await executor.store.get(id);
    if (waiting === undefined) throw new Error('the task is gone');
    const head = await executor.store.feature(SignalStore).head(waiting);
    const first = await signalWrites(executor.store).send(waiting, head, {
      name: 'pay',
      dataJson: '7',
      signalId: 'payment-9',
    });

    runWorker(task);
    // Act: the caller retries with the same signal id.
    const retried = await client.signal(id, 'pay', 7, { signalId: 'payment-9' });
    // Well inside the wait's 120 s timeout, and with no sweeper to repair the lost wake.
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(first).toMatchObject({ kind: 'stored', woke: true });
    expect(retried).toMatchObject({ duplicate: true, woke: true, seq: undefined });
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ received: true, data: 7 });
    expect((await executor.store.feature(SignalStore).head(record))?.count).toBe(1);
  });
});
