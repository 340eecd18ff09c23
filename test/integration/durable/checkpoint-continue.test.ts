import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { LeaseLostError, ValidationError } from '../../../src/core/errors.js';
import { DurableWrites } from '../../../src/store/durable-writes.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';

useDurableExecutor();

describe('ctx.saveCheckpoint', () => {
  it('is seen by the retry, with pending progress written by the same write', async () => {
    const seen: unknown[] = [];
    const task = defineTask('durable.checkpoint.retry', {
      schema: z.object({}),
      retry: { maxAttempts: 2, baseDelayMs: 0 },
      handler: async (_payload, ctx) => {
        seen.push(ctx.checkpoint);
        if (ctx.attempt === 1) {
          ctx.progress({ rows: 500 });
          await ctx.saveCheckpoint({ cursor: 500 });
          throw new Error('crash after the checkpoint');
        }
        return ctx.checkpoint;
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(seen).toEqual([undefined, { cursor: 500 }]);
    expect(record.result).toEqual({ cursor: 500 });
    expect(record.checkpoint).toEqual({ cursor: 500 });
    expect(record.progress).toEqual({ rows: 500 });
    expect(record.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.CHECKPOINTED,
      AuditEvent.RETRY_SCHEDULED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });

  it('refuses a checkpoint over 4 KB without a payload bucket, quoting its size', async () => {
    let refusal: unknown;
    const task = defineTask('durable.checkpoint.large', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.saveCheckpoint({ blob: 'x'.repeat(5000) }).catch((err: unknown) => {
          refusal = err;
        });
        return 'done';
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await client.wait(id, { timeoutMs: 30_000 });

    expect(refusal).toBeInstanceOf(ValidationError);
    expect((refusal as Error).message).toContain('expected at most 4096 bytes');
    expect((refusal as Error).message).toContain('received 5011 bytes');
  });

  it("refuses a stale run's save with LeaseLostError", async () => {
    const client = executor.client();
    const task = defineTask('durable.checkpoint.stale', {
      schema: z.object({}),
      handler: () => 'unused',
    });
    const { id } = await client.enqueue(task, {});
    const first = await executor.store.claim(
      { id, type: task.type, attempt: 0 },
      { workerId: 'w1', leaseMs: 1 },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    await executor.store.claim(
      { id, type: task.type, attempt: 1 },
      { workerId: 'w2', leaseMs: 60_000 },
    );

    const save = executor.store
      .feature(DurableWrites)
      .saveCheckpoint(first.lease, Date.now() + 60_000, {
        json: '{"stale":true}',
      });

    await expect(save).rejects.toBeInstanceOf(LeaseLostError);
    expect((await client.get(id))?.checkpoint).toBeUndefined();
  });
});

describe('ctx.continue', () => {
  it('runs the task again from its checkpoint without spending an attempt', async () => {
    const slices: number[] = [];
    const task = defineTask('durable.continue.slices', {
      schema: z.object({ total: z.number() }),
      retry: { maxAttempts: 1 },
      handler: async ({ total }, ctx) => {
        const done = (ctx.checkpoint as { done: number } | undefined)?.done ?? 0;
        slices.push(ctx.attempt);
        const next = done + 1;
        // Every slice replays the steps before its own, in order, then stores its own.
        for (let n = 1; n <= next; n++) await ctx.step(`slice-${n}`, () => n);
        await ctx.saveCheckpoint({ done: next });
        if (next < total) return ctx.continue();
        expect(ctx.remainingMs()).toBeGreaterThan(0);
        return { done: next };
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, { total: 4 });
    const record = await client.wait(id, { timeoutMs: 60_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ done: 4 });
    expect(slices).toEqual([1, 1, 1, 1]);
    expect(record.attempt).toBe(1);
    expect(record.continuations).toBe(3);
    expect(record.history.filter((h) => h.event === AuditEvent.CONTINUED)).toHaveLength(3);
    const steps = (await client.get(id, { steps: true }))?.steps ?? [];
    expect(steps.map((s) => s.name)).toEqual(['slice-1', 'slice-2', 'slice-3', 'slice-4']);
  });

  it('ends DEAD with a clear reason past maxContinuations', async () => {
    const task = defineTask('durable.continue.limit', {
      schema: z.object({}),
      maxContinuations: 2,
      handler: async (_payload, ctx) => ctx.continue(),
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 60_000 });

    expect(record.status).toBe(TaskStatus.DEAD);
    expect(record.continuations).toBe(2);
    expect(record.deadReason).toContain("continued 2 times, the type's maxContinuations");
  });

  it('keeps its ordering key: no later task of the key starts between slices', async () => {
    const order: string[] = [];
    const task = defineTask('durable.continue.keyed', {
      schema: z.object({ name: z.string(), slices: z.number() }),
      handler: async ({ name, slices }, ctx) => {
        const done = (ctx.checkpoint as number | undefined) ?? 0;
        order.push(`${name}:${done}`);
        if (done + 1 < slices) {
          await ctx.saveCheckpoint(done + 1);
          return ctx.continue();
        }
        return name;
      },
    });
    const client = executor.client();
    const first = await client.enqueue(task, { name: 'a', slices: 3 }, { orderingKey: 'k1' });
    const second = await client.enqueue(task, { name: 'b', slices: 1 }, { orderingKey: 'k1' });
    runWorker(task);

    await client.wait(first.id, { timeoutMs: 60_000 });
    await client.wait(second.id, { timeoutMs: 60_000 });

    expect(order).toEqual(['a:0', 'a:1', 'a:2', 'b:0']);
  });

  it('refuses maxContinuations that would pass the queue receive limit', () => {
    const define = () =>
      defineTask('durable.continue.too-many', {
        schema: z.object({}),
        maxContinuations: 999,
        handler: () => undefined,
      });

    expect(define).toThrow(ValidationError);
    expect(define).toThrow(/maxContinuations \(999\) \+ 5 receives of headroom/);
    expect(() =>
      executor.worker(
        [
          defineTask('durable.continue.receive', {
            schema: z.object({}),
            maxContinuations: 45,
            handler: () => 1,
          }),
        ],
        { maxReceiveCount: 50 },
      ),
    ).toThrow(/below the queue's maxReceiveCount \(50\)/);
  });
});
