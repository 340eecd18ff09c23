/**
 * A debounced durable task that ended a slice with `ctx.continue()` has started: its attempt
 * is back at 0 (a continuation spends none), but a later enqueue of its debounce key makes a
 * new task instead of folding into it
 * (docs/adr/0064-a-given-back-claim-ends-the-debounce-window.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { deliverOnceAfterWindow } from '../helpers/debounce.js';
import { eventually, setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
/** The `rev` of every slice, in start order. */
const slices: number[] = [];

const publish = defineTask('debounce-continued.publish', {
  schema: z.object({ rev: z.number() }),
  retry: { maxAttempts: 1 },
  handler: async ({ rev }, ctx) => {
    slices.push(rev);
    if (ctx.checkpoint === undefined) {
      await ctx.saveCheckpoint({ first: 'done' });
      return ctx.continue();
    }
    return { rev };
  },
});

beforeAll(async () => {
  executor = await setupExecutor();
});

describe('TaskClient.enqueue with debounce, after the task continued', () => {
  it('opens a new task, and the continued one finishes with its own payload first', async () => {
    const client = executor.client();
    const worker = executor.worker([publish]);
    const options = {
      orderingKey: 'site-11',
      debounce: { key: 'site-11', windowMs: 200, mode: 'last' },
    } as const;
    const first = await client.enqueue(publish, { rev: 1 }, options);
    await deliverOnceAfterWindow(executor, worker, options.debounce.windowMs);
    const continued = await client.get(first.id);
    const next = await client.enqueue(publish, { rev: 2 }, options);

    expect(continued).toMatchObject({ status: TaskStatus.QUEUED, attempt: 0, continuations: 1 });
    expect(continued?.history.at(-1)?.event).toBe(AuditEvent.CONTINUED);
    expect(next.id).not.toBe(first.id);
    expect([next.created, next.absorbed]).toEqual([true, false]);

    await eventually(async () => {
      await executor.drain(worker);
      return (await client.get(next.id))?.status === TaskStatus.SUCCEEDED;
    });
    expect(slices).toEqual([1, 1, 2, 2]);
    expect(await client.get(first.id)).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      payload: { rev: 1 },
      result: { rev: 1 },
    });
  });
});
