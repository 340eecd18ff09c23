/**
 * A slice whose handler outlives its timeout: the run counts as failed at once and the task
 * is retried, while JavaScript keeps the abandoned handler running. Found by the bench's
 * replay row (issue 25): on a loaded emulator, 100 steps outran the 30 s timeout, and the
 * timed-out slice kept starting steps beside its retry.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../../src/core/constants.js';
import { TaskTimeoutError } from '../../../src/core/errors.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';

useDurableExecutor();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const STEPS = 12;

describe('ctx.step after the slice timed out', () => {
  it('starts no step once the timeout has ended the slice: each effect runs once, but the one in flight', async () => {
    const calls = new Map<string, number>();
    const abandoned: unknown[] = [];
    let finished = 0;
    const task = defineTask('durable.timeout.steps', {
      schema: z.object({}),
      timeout: 1_500,
      retry: { maxAttempts: 3, baseDelayMs: 0 },
      handler: async (_payload, ctx) => {
        try {
          for (let n = 0; n < STEPS; n++) {
            await ctx.step(`s${n}`, async () => {
              calls.set(`s${n}`, (calls.get(`s${n}`) ?? 0) + 1);
              // The first attempt's steps outrun its timeout; the retry's are quick.
              if (ctx.attempt === 1) await sleep(300);
            });
          }
        } catch (err) {
          if (ctx.attempt === 1) abandoned.push(err);
          throw err;
        } finally {
          if (ctx.attempt === 1) finished += 1;
        }
        return 'done';
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });
    // The abandoned first handler ends by itself (within a step's time after the timeout).
    while (finished === 0) await sleep(100);

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.attempt).toBe(2);
    // Only the step running when the timeout struck may run again (its slice ended before
    // its result was stored); no step starts in the timed-out slice after that.
    const twice = [...calls.entries()].filter(([, n]) => n > 1).map(([name]) => name);
    expect(twice.length).toBeLessThanOrEqual(1);
    expect([...calls.values()].every((n) => n <= 2)).toBe(true);
    expect(calls.size).toBe(STEPS);
    expect(abandoned).toHaveLength(1);
    expect(abandoned[0]).toBeInstanceOf(TaskTimeoutError);
  });
});
