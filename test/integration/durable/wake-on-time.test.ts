/**
 * A suspending run's hold is sent as soon as it is decided, not when its batch ends
 * (docs/adr/0067-holds-within-the-receive-budget.md): a short sleeper batched with a slow
 * task wakes on time, not once the slow task is done.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../../src/core/constants.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';

useDurableExecutor();

const NAP_MS = 2_000;
const SLOW_MS = 10_000;

describe('a hold sent as soon as it is decided', () => {
  it('wakes a short sleeper batched with a slow task on time', async () => {
    const times: { slept?: number; woke?: number } = {};
    const sleeper = defineTask('durable.wake-on-time.sleeper', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.step('before', () => {
          times.slept = Date.now();
        });
        await ctx.sleep('nap', NAP_MS);
        times.woke ??= Date.now();
      },
    });
    const slow = defineTask('durable.wake-on-time.slow', {
      schema: z.object({}),
      handler: async () => {
        await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
      },
    });
    const client = executor.client();
    const sleeping = await client.enqueue(sleeper, {});
    const slowTask = await client.enqueue(slow, {});
    // Both in one batch, run by one worker (as an event source mapping delivers them)...
    const batch = [];
    while (batch.length < 2) batch.push(...(await executor.receive()));
    const batchDone = executor.deliver(executor.worker([sleeper, slow]), batch);
    // ...while another worker takes what comes back meanwhile: the woken sleeper.
    runWorker([sleeper, slow]);

    const woken = await client.wait(sleeping.id, { timeoutMs: 30_000 });
    const wokeWhileSlowRan = (await client.get(slowTask.id))?.status === TaskStatus.RUNNING;
    await batchDone;

    expect(woken.status).toBe(TaskStatus.SUCCEEDED);
    expect(wokeWhileSlowRan).toBe(true);
    const late = (times.woke ?? 0) - (times.slept ?? 0) - NAP_MS;
    expect(late).toBeLessThan(4_000);
  }, 60_000);
});
