import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { eventually, setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
const stops: (() => Promise<void>)[] = [];
/** Every run: the task id, the payload's `n`, and when it started. */
let runs: { id: string; n: number; at: number }[];
let gate: Promise<void> = Promise.resolve();

const save = defineTask('save', {
  schema: z.object({ n: z.number() }),
  handler: async ({ n }, ctx) => {
    runs.push({ id: ctx.taskId, n, at: Date.now() });
    await gate;
  },
});

function startWorker(): void {
  const controller = new AbortController();
  const polling = executor
    .worker([save])
    .poll({ signal: controller.signal, waitTimeSeconds: 1, batchSize: 10 });
  stops.push(async () => {
    controller.abort();
    await polling;
  });
}

let keys = 0;
const nextKey = () => `doc-${++keys}`;

beforeAll(async () => {
  executor = await setupExecutor();
});

afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
  runs = [];
  gate = Promise.resolve();
});
runs = [];

describe("TaskClient.enqueue with debounce 'last'", () => {
  it('runs once, with the last payload, at the end of the window after the last enqueue', async () => {
    const client = executor.client();
    const key = nextKey();
    const debounce = { key, windowMs: 2000, mode: 'last' } as const;
    startWorker();

    const results = [];
    // When the last enqueue began: its window ends no earlier than this plus windowMs (a
    // time taken after it would include a sleep that a loaded machine overruns).
    let lastAt = 0;
    for (let n = 1; n <= 4; n++) {
      lastAt = Date.now();
      results.push(await client.enqueue(save, { n }, { debounce }));
      await new Promise((r) => setTimeout(r, 300));
    }
    const id = results[0]?.id as string;
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUCCEEDED);
    await new Promise((r) => setTimeout(r, 1500));

    expect(results.map((r) => r.id)).toEqual([id, id, id, id]);
    expect(results.map((r) => [r.created, r.absorbed])).toEqual([
      [true, false],
      [false, true],
      [false, true],
      [false, true],
    ]);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.n).toBe(4);
    expect(runs[0]?.at).toBeGreaterThanOrEqual(lastAt + 2000 - 50);
    const record = await client.get(id);
    expect(record?.payload).toEqual({ n: 4 });
    expect(record?.debounce).toEqual({ key, mode: 'last', absorbed: 3 });
  });

  it('creates a new task, run after it, when the waiting one has already started', async () => {
    const client = executor.client();
    const debounce = { key: nextKey(), windowMs: 500, mode: 'last' } as const;
    let release = () => {};
    gate = new Promise((resolve) => {
      release = resolve;
    });
    startWorker();
    const first = await client.enqueue(save, { n: 1 }, { debounce });
    await eventually(() => runs.length === 1);

    const second = await client.enqueue(save, { n: 2 }, { debounce });
    const third = await client.enqueue(save, { n: 3 }, { debounce });
    release();
    await eventually(async () => (await client.get(second.id))?.status === TaskStatus.SUCCEEDED);

    expect(second.id).not.toBe(first.id);
    expect([second.created, second.absorbed]).toEqual([true, false]);
    expect(third.id).toBe(second.id);
    expect(runs.map((r) => [r.id, r.n])).toEqual([
      [first.id, 1],
      [second.id, 3],
    ]);
    expect((await client.get(first.id))?.payload).toEqual({ n: 1 });
  });

  it('converges on one task when several clients enqueue the same key at once', async () => {
    const clients = Array.from({ length: 6 }, () => executor.client());
    const debounce = { key: nextKey(), windowMs: 5000, mode: 'last' } as const;

    const results = await Promise.all(
      clients.map((client, n) => client.enqueue(save, { n }, { debounce })),
    );

    const ids = new Set(results.map((r) => r.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const record = await executor.store.get(results[0]?.id as string);
    expect(record?.debounce?.absorbed).toBe(5);
    expect(record?.status).toBe(TaskStatus.PENDING);
  });

  it('runs exactly once with a consistent payload when a replacement races the claim', async () => {
    const client = executor.client();
    const worker = executor.worker([save]);

    for (let round = 0; round < 4; round++) {
      runs = [];
      const debounce = { key: nextKey(), windowMs: 300, mode: 'last' } as const;
      const first = await client.enqueue(save, { n: 1 }, { debounce });
      await new Promise((r) => setTimeout(r, 350));

      // The task is due: its claim and a replacement race.
      const [replaced] = await Promise.all([
        client.enqueue(save, { n: 2 }, { debounce }),
        executor.drain(worker),
      ]);
      await eventually(async () => {
        await executor.drain(worker);
        return (await client.get(replaced.id))?.status === TaskStatus.SUCCEEDED;
      });

      // The drains also run other tests' tasks: only this round's count.
      const ours = new Set([first.id, replaced.id]);
      runs = runs.filter((r) => ours.has(r.id));
      const byN = runs.map((r) => r.n).sort();
      if (replaced.id === first.id) {
        expect(runs).toEqual([expect.objectContaining({ id: first.id, n: 2 })]);
      } else {
        expect(byN).toEqual([1, 2]);
        expect(runs.find((r) => r.n === 1)?.id).toBe(first.id);
        expect(runs.find((r) => r.n === 2)?.id).toBe(replaced.id);
      }
      for (const run of runs) {
        expect((await client.get(run.id))?.payload).toEqual({ n: run.n });
      }
    }
  });
});

describe("TaskClient.enqueue with debounce 'first'", () => {
  it('runs once with the first payload at the end of the first enqueue’s window', async () => {
    const client = executor.client();
    const key = nextKey();
    const debounce = { key, windowMs: 1500, mode: 'first' } as const;
    startWorker();

    const start = Date.now();
    const results = [];
    for (let n = 1; n <= 3; n++) {
      results.push(await client.enqueue(save, { n }, { debounce }));
      await new Promise((r) => setTimeout(r, 200));
    }
    const id = results[0]?.id as string;
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUCCEEDED);
    await new Promise((r) => setTimeout(r, 1000));

    expect(results.map((r) => r.id)).toEqual([id, id, id]);
    expect(runs.map((r) => r.n)).toEqual([1]);
    expect(runs[0]?.at).toBeGreaterThanOrEqual(start + 1500 - 50);
    expect((await client.get(id))?.debounce).toEqual({ key, mode: 'first', absorbed: 2 });
  });
});

describe('TaskClient.enqueue with debounce, through a one-time schedule', () => {
  it('holds back a firing that comes before the replaced window end, keeping the new payload', async () => {
    const client = executor.client({ scheduleThresholdMs: 0 });
    const later = executor.client({ scheduleThresholdMs: 0, clock: () => Date.now() + 60_000 });
    const debounce = { key: nextKey(), windowMs: 120_000, mode: 'last' } as const;
    const first = await client.enqueue(save, { n: 1 }, { debounce });
    const second = await later.enqueue(save, { n: 2 }, { debounce });
    const firstEnd = first.record.runAt as number;
    const worker = executor.worker([save], { clock: () => firstEnd + 1000 });

    // The schedule fires at the first window's end, before the replaced one.
    const fired = await executor.pump({ clock: () => firstEnd + 1000 }).tick();
    const early = await executor.drain(worker);

    expect(first.record.status).toBe(TaskStatus.SCHEDULED);
    expect(second.id).toBe(first.id);
    expect(fired.deliveries.map((d) => d.error)).toEqual([undefined]);
    expect(early.failed).toBe(1);
    expect(runs.filter((r) => r.id === first.id)).toHaveLength(0);
    const held = await client.get(first.id);
    expect(held?.status).toBe(TaskStatus.SCHEDULED);
    expect(held?.payload).toEqual({ n: 2 });
    expect(held?.runAt).toBe(second.record.runAt as number);
    expect(held?.runAt).toBeGreaterThan(firstEnd + 50_000);
  });
});
