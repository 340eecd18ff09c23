import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../../src/core/constants.js';
import { PermanentError } from '../../../src/core/errors.js';
import { StepStore } from '../../../src/store/steps.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';

useDurableExecutor();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A task whose step `a` always works and whose step `b` fails while `failing` says so. */
function twoSteps(type: string, effects: string[], state: { failing: boolean }) {
  return defineTask(type, {
    schema: z.object({}),
    retry: { maxAttempts: 1 },
    handler: async (_payload, ctx) => {
      await ctx.step('a', () => {
        effects.push('a');
        return 1;
      });
      if (ctx.checkpoint === undefined) await ctx.saveCheckpoint({ seen: true });
      return ctx.step('b', () => {
        effects.push('b');
        if (state.failing) throw new PermanentError('b is broken');
        return 'done';
      });
    },
  });
}

describe('durable tasks and redrive', () => {
  it('resumes a redriven DEAD task from its steps and checkpoint', async () => {
    const effects: string[] = [];
    const state = { failing: true };
    const task = twoSteps('durable.redrive.resume', effects, state);
    runWorker(task);
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    expect((await client.wait(id, { timeoutMs: 30_000 })).status).toBe(TaskStatus.DEAD);

    state.failing = false;
    await client.redrive({ ids: [id] });
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(effects).toEqual(['a', 'b', 'b']);
    expect(record.checkpoint).toEqual({ seen: true });
  });

  it('clears steps and checkpoint with { restart: true }', async () => {
    const effects: string[] = [];
    const state = { failing: true };
    const task = twoSteps('durable.redrive.restart', effects, state);
    runWorker(task);
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    expect((await client.wait(id, { timeoutMs: 30_000 })).status).toBe(TaskStatus.DEAD);

    state.failing = false;
    await client.redrive({ ids: [id] }, { restart: true });
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(effects).toEqual(['a', 'b', 'a', 'b']);
    expect(record.stepEpoch).toBe(1);
    expect((await executor.store.feature(StepStore).window(id, 0, 0)).size).toBe(0);
    expect((await client.get(id, { steps: true }))?.steps?.map((s) => s.name)).toEqual(['a', 'b']);
  });

  it('deletes the step items with a purge', async () => {
    const effects: string[] = [];
    const task = twoSteps('durable.purge', effects, { failing: true });
    runWorker(task);
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    await client.wait(id, { timeoutMs: 30_000 });
    // Step a's result and the marker step b left as it threw: a purge deletes both.
    const before = await executor.store.feature(StepStore).window(id, 0, 0);
    expect([...before.values()].map((s) => [s.name, s.threw ?? false])).toEqual([
      ['a', false],
      ['b', true],
    ]);

    await client.purge({ status: TaskStatus.DEAD, olderThan: 0, ids: [id] });

    expect(await client.get(id)).toBeUndefined();
    expect((await executor.store.feature(StepStore).window(id, 0, 0)).size).toBe(0);
  });
});

describe('durable tasks and cancel', () => {
  it('ends a running durable task CANCELLED at its next step', async () => {
    const ran: number[] = [];
    const task = defineTask('durable.cancel', {
      schema: z.object({}),
      timeout: 20_000,
      handler: async (_payload, ctx) => {
        for (let n = 0; n < 100; n++) {
          await ctx.step(`s${n}`, async () => {
            ran.push(n);
            await sleep(200);
          });
        }
      },
    });
    runWorker(task, { leaseDurationMs: 3000 });
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    while (ran.length < 3) await sleep(100);

    await client.cancel(id);
    const record = await client.wait(id, { timeoutMs: 30_000 });
    const steps = (await client.get(id, { steps: true }))?.steps ?? [];

    expect(record.status).toBe(TaskStatus.CANCELLED);
    expect(ran.length).toBeLessThan(20);
    expect(steps.length).toBeGreaterThanOrEqual(ran.length - 1);
    expect(steps.length).toBeLessThanOrEqual(ran.length);
  });
});
