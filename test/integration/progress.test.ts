import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import type { TaskContext } from '../../src/tasks/task-definition.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import type { WorkerOptions } from '../../src/worker/create-worker.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  executor = await setupExecutor();
});

afterEach(async () => {
  await stop?.();
  stop = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the queue with a worker for `task` until the test ends. */
function startWorker(
  task: ReturnType<typeof defineTask>,
  options: Partial<WorkerOptions> = {},
): void {
  const controller = new AbortController();
  const done = executor.worker([task], options).poll({
    signal: controller.signal,
    waitTimeSeconds: 1,
  });
  stop = async () => {
    controller.abort();
    await done;
  };
}

/** A 3 s lease: the worker beats automatically every second. */
const SHORT_LEASE = { leaseDurationMs: 3000 };

describe('ctx.progress', () => {
  it('coalesces hundreds of calls into at most one write per heartbeat interval', async () => {
    let calls = 0;
    const task = defineTask('progress.many', {
      schema: z.object({}),
      timeout: 10_000,
      handler: async (_payload, ctx) => {
        for (let step = 0; step < 250; step++) {
          ctx.progress({ step });
          calls++;
          await sleep(10);
        }
      },
    });
    startWorker(task, SHORT_LEASE);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(calls).toBe(250);
    // About 2.5 s of calls under a 1 s heartbeat interval: a handful of writes at most.
    expect(record.heartbeats).toBeGreaterThanOrEqual(1);
    expect(record.heartbeats).toBeLessThanOrEqual(5);
    expect(record.progress).toEqual({ step: expect.any(Number) });
    expect(record.progressAt).toBeGreaterThanOrEqual(record.createdAt);
    expect(record.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });

  it('writes at once without an automatic heartbeat, then at most once per interval', async () => {
    const task = defineTask('progress.short', {
      schema: z.object({}),
      timeout: 10_000,
      handler: async (_payload, ctx) => {
        for (let step = 0; step < 100; step++) {
          ctx.progress({ step });
          await sleep(20);
        }
      },
    });
    // An 11 s lease covers the run: no automatic beat; the interval is a third of it.
    startWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.heartbeats).toBe(1);
    expect(record.progress).toEqual({ step: 0 });
  });

  it('is returned by get and reported by wait({ onProgress }) as it changes', async () => {
    const task = defineTask('progress.steps', {
      schema: z.object({}),
      timeout: 10_000,
      handler: async (_payload, ctx) => {
        for (const percent of [25, 50, 75]) {
          ctx.progress({ percent });
          await sleep(1500);
        }
        return 'done';
      },
    });
    startWorker(task, SHORT_LEASE);
    const client = executor.client();
    const seen: unknown[] = [];

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, {
      timeoutMs: 30_000,
      intervalMs: 100,
      onProgress: (progress) => seen.push(progress),
    });
    const read = await client.get(id);

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    const percents = seen.map((p) => (p as { percent: number }).percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(new Set(percents).size).toBe(percents.length);
    expect(read?.progress).toEqual(seen.at(-1));
    expect(read?.progressAt).toBe(record.progressAt);
  });

  it('refuses details over 4 KB or not JSON with a ValidationError in the handler', async () => {
    const task = defineTask('progress.refused', {
      schema: z.object({}),
      handler: (_payload, ctx: TaskContext) => {
        const refusals: string[] = [];
        for (const details of ['x'.repeat(5000), 10n, undefined, () => 1]) {
          try {
            ctx.progress(details);
          } catch (err) {
            refusals.push(`${(err as Error).name}: ${(err as Error).message}`);
          }
        }
        return refusals;
      },
    });
    startWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    const refusals = record.result as string[];
    expect(refusals).toHaveLength(4);
    expect(refusals.every((r) => r.startsWith('ValidationError: Invalid progress details'))).toBe(
      true,
    );
    expect(refusals[0]).toContain('expected at most 4096 bytes of JSON, received 5002 bytes');
    expect(refusals[1]).toContain('expected a JSON value');
    expect(record.progress).toBeUndefined();
    expect(record.heartbeats).toBe(0);
  });
});
