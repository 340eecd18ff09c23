/**
 * A debounced task that died and parked its ordering key, then was redriven in place
 * (docs/adr/0033-debounce-fences.md): the redrive reruns the payload that died, and a later
 * enqueue of the debounce key opens a new task instead of rewriting the redriven one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { eventually, setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
/** The `rev` of every run, in start order. */
const runs: number[] = [];
let failing = true;

const publish = defineTask('debounce-redriven.publish', {
  schema: z.object({ rev: z.number() }),
  retry: { maxAttempts: 1 },
  onDead: 'park',
  handler: ({ rev }) => {
    runs.push(rev);
    if (failing) throw new PermanentError(`rev ${rev} refused downstream`);
  },
});

beforeAll(async () => {
  executor = await setupExecutor();
});

describe('TaskClient.enqueue with debounce, after a parked key was redriven', () => {
  it('reruns the payload that died, and runs the next enqueue as a new task after it', async () => {
    const client = executor.client();
    const worker = executor.worker([publish]);
    const options = {
      orderingKey: 'site-7',
      debounce: { key: 'site-7', windowMs: 200, mode: 'last' },
    } as const;
    const died = await client.enqueue(publish, { rev: 1 }, options);
    await eventually(async () => {
      await executor.drain(worker);
      return (await client.get(died.id))?.status === TaskStatus.DEAD;
    });
    failing = false;
    await client.redrive({ orderingKey: 'site-7' });

    const next = await client.enqueue(publish, { rev: 2 }, options);
    await eventually(async () => {
      await executor.drain(worker);
      return (await client.get(next.id))?.status === TaskStatus.SUCCEEDED;
    });

    expect(next.id).not.toBe(died.id);
    expect([next.created, next.absorbed]).toEqual([true, false]);
    expect(runs).toEqual([1, 1, 2]);
    const redriven = await client.get(died.id);
    expect(redriven).toMatchObject({ status: TaskStatus.SUCCEEDED, payload: { rev: 1 } });
    expect(redriven?.debounce?.absorbed).toBe(0);
  });
});
