import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import type { TaskContext } from '../../src/tasks/task-definition.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { executor, runWorker, useWorkerHarness } from '../helpers/worker-harness.js';

useWorkerHarness();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A 3 s lease: the worker beats automatically every second. */
const SHORT_LEASE = { leaseDurationMs: 3000 };

describe('ctx.progress', () => {
  it('shows the first report within about a second, though the lease beats only every 40 s', async () => {
    // A 60 s timeout: its lease (capped at 120 s) is shorter than the run plus the grace, so
    // the worker beats automatically every 40 s. The handler reports at once, then works until
    // the test has seen the report (at most 10 s): a 30 s task, without the 30 s.
    let reportedAt = 0;
    let seen: () => void = () => {};
    const shown = new Promise<void>((resolve) => {
      seen = resolve;
    });
    const task = defineTask('progress.long', {
      schema: z.object({}),
      timeout: 60_000,
      handler: async (_payload, ctx) => {
        reportedAt = Date.now();
        ctx.progress({ phase: 'started' });
        await Promise.race([shown, sleep(10_000)]);
        return 'done';
      },
    });
    // The production lease settings (the test helper's grace is 1 s).
    runWorker(task, { leaseGraceMs: 75_000, leaseDurationMs: 120_000 });
    const client = executor.client();
    let shownAt = 0;

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, {
      timeoutMs: 30_000,
      onProgress: (progress) => {
        if ((progress as { phase?: string }).phase !== 'started') return;
        shownAt = Date.now();
        seen();
      },
    });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(shownAt).toBeGreaterThan(0);
    console.log(`[progress] first report shown by wait() ${shownAt - reportedAt} ms after it`);
    expect(shownAt - reportedAt).toBeLessThan(2_000);
    expect(record.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });

  it('writes later reports at most once per progressIntervalMs, the latest each time', async () => {
    const task = defineTask('progress.interval', {
      schema: z.object({}),
      timeout: 20_000,
      handler: async (_payload, ctx) => {
        const end = Date.now() + 3_500;
        for (let step = 0; Date.now() < end; step++) {
          ctx.progress({ step });
          await sleep(20);
        }
      },
    });
    // The lease covers the run: no automatic beat, so every write is a progress write.
    runWorker(task, { progressIntervalMs: 1_000 });
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    // At once, then one a second for 3.5 s: 4 writes (a slow write may make it 3).
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.heartbeats).toBeGreaterThanOrEqual(3);
    expect(record.heartbeats).toBeLessThanOrEqual(4);
    expect((record.progress as { step: number }).step).toBeGreaterThan(0);
  });

  it('refuses a progress interval under 500 ms with a ValidationError', () => {
    const task = defineTask('progress.fast', { schema: z.object({}), handler: () => 'done' });

    const build = () => executor.worker([task], { progressIntervalMs: 10 });

    expect(build).toThrow(/progressIntervalMs: expected an integer from 500 to 900000/);
  });

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
    runWorker(task, SHORT_LEASE);
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
    // An 11 s lease covers the run: no automatic beat; the 5 s progress interval outlasts it.
    runWorker(task);
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
    runWorker(task, SHORT_LEASE);
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
    runWorker(task);
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
