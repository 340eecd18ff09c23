import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TableSchema, TaskStatus } from '../../../src/core/constants.js';
import { PermanentError } from '../../../src/core/errors.js';
import { StepStore, stepKey } from '../../../src/store/steps.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { executor, runWorker, stopWorker, useDurableExecutor } from '../../helpers/durable.js';

useDurableExecutor();

describe('ctx.step', () => {
  it('runs each step once across retries and replays stored results', async () => {
    const effects: string[] = [];
    let runs = 0;
    const task = defineTask('durable.steps.retry', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 0 },
      handler: async (_payload, ctx) => {
        runs += 1;
        const a = await ctx.step('a', () => {
          effects.push('a');
          return { n: 1 };
        });
        const b = await ctx.step('b', () => {
          effects.push('b');
          return a.n + 1;
        });
        if (runs === 1) throw new Error('transient');
        const c = await ctx.step('c', () => {
          effects.push('c');
          return b + 1;
        });
        return { c, steps: (await ctx.steps()).map((s) => s.name) };
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ c: 3, steps: ['a', 'b', 'c'] });
    expect(effects).toEqual(['a', 'b', 'c']);
    expect(runs).toBe(2);
    const withSteps = await client.get(id, { steps: true });
    expect(withSteps?.steps?.map((s) => [s.index, s.name, s.attempt])).toEqual([
      [0, 'a', 1],
      [1, 'b', 1],
      [2, 'c', 2],
    ]);
    expect(withSteps?.steps?.[0]?.sizeBytes).toBe(Buffer.byteLength('{"n":1}'));
  });

  it('does not store a step that throws, and runs it again on the next attempt', async () => {
    let calls = 0;
    const task = defineTask('durable.steps.throws', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 0 },
      handler: async (_payload, ctx) =>
        ctx.step('flaky', () => {
          calls += 1;
          if (calls === 1) throw new Error('first call fails');
          return 'ok';
        }),
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toBe('ok');
    expect(calls).toBe(2);
  });

  it('ends DEAD with NON_DETERMINISTIC naming the step expected and the one called', async () => {
    let runs = 0;
    const task = defineTask('durable.steps.nondeterministic', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 0 },
      handler: async (_payload, ctx) => {
        runs += 1;
        await ctx.step(runs === 1 ? 'charge' : 'refund', () => 1);
        if (runs === 1) throw new Error('retry me');
        return 'done';
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.DEAD);
    expect(record.deadReason).toContain('NON_DETERMINISTIC');
    expect(record.deadReason).toContain('"charge"');
    expect(record.deadReason).toContain('"refund"');
    expect(record.lastError?.name).toBe('NonDeterministicError');
  });

  it('refuses a step name used twice in one run as NON_DETERMINISTIC', async () => {
    const task = defineTask('durable.steps.duplicate', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.step('same', () => 1);
        await ctx.step('same', () => 2).catch(() => undefined);
        return 'swallowed';
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.DEAD);
    expect(record.deadReason).toMatch(/NON_DETERMINISTIC: step "same" was called twice/);
  });

  it('stores a step item of its own, immutable, that expires after the retention', async () => {
    const task = defineTask('durable.steps.item', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.step('only', () => ({ big: 'x'.repeat(100) })),
    });
    runWorker(task, { retention: 60_000 });
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });
    const step = await executor.store.feature(StepStore).window(id, 0, 0, 1);
    const again = await executor.store.feature(StepStore).store({
      taskId: id,
      epoch: 0,
      index: 0,
      name: 'only',
      attempt: 9,
      workerId: 'stale',
      resultJson: '"overwritten"',
      sizeBytes: 13,
    });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(step.get(0)?.name).toBe('only');
    expect(again.stored).toBe(false);
    expect((await executor.store.feature(StepStore).window(id, 0, 0, 1)).get(0)?.resultJson).toBe(
      step.get(0)?.resultJson,
    );
    expect(stepKey(id, 0, 0)).toBe(`step ${id} 0 0`);
    expect(record.history.map((h) => h.event)).not.toContain(AuditEvent.STEP_STORED);
  });

  it("expires a step item at its write time plus the retention plus 21 days, never with 'forever'", async () => {
    const retention = 60_000;
    // The longest a task may still run after a step: its retries and continuations (ADR 0047).
    const horizon = 21 * 24 * 60 * 60 * 1000;
    const kept = defineTask('durable.steps.ttl', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.step('only', () => 1),
    });
    const forever = defineTask('durable.steps.forever', {
      schema: z.object({}),
      handler: async (_payload, ctx) => ctx.step('only', () => 1),
    });
    const rawStep = async (id: string) => {
      const { Item } = await executor.clients.dynamodb.send(
        new GetItemCommand({
          TableName: executor.tableName,
          Key: { [TableSchema.PARTITION_KEY]: { S: stepKey(id, 0, 0) } },
          ConsistentRead: true,
        }),
      );
      if (Item === undefined) throw new Error(`no step item for ${id}`);
      return unmarshall(Item);
    };
    const client = executor.client();

    runWorker(kept, { retention });
    const before = Date.now();
    const { id } = await client.enqueue(kept, {});
    expect((await client.wait(id, { timeoutMs: 30_000 })).status).toBe(TaskStatus.SUCCEEDED);
    const after = Date.now();
    await stopWorker();
    runWorker(forever, { retention: 'forever' });
    const { id: foreverId } = await client.enqueue(forever, {});
    expect((await client.wait(foreverId, { timeoutMs: 30_000 })).status).toBe(TaskStatus.SUCCEEDED);

    const item = await rawStep(id);
    expect(item.at).toBeGreaterThanOrEqual(before);
    expect(item.at).toBeLessThanOrEqual(after);
    // DynamoDB's TTL is in seconds: the instant rounded up, so the step never expires early.
    expect(item[TableSchema.TTL_ATTRIBUTE]).toBe(Math.ceil((item.at + retention + horizon) / 1000));
    expect(await rawStep(foreverId)).not.toHaveProperty(TableSchema.TTL_ATTRIBUTE);
  });

  it('lets a PermanentError from a step end the task DEAD, storing only its marker', async () => {
    const task = defineTask('durable.steps.permanent', {
      schema: z.object({}),
      handler: async (_payload, ctx) =>
        ctx.step('bad', () => {
          throw new PermanentError('no');
        }),
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.DEAD);
    expect((await client.get(id, { steps: true }))?.steps).toEqual([]);
    // What it leaves is a marker at its position: no result, the error's name, a TTL.
    const { Item } = await executor.clients.dynamodb.send(
      new GetItemCommand({
        TableName: executor.tableName,
        Key: { [TableSchema.PARTITION_KEY]: { S: stepKey(id, 0, 0) } },
        ConsistentRead: true,
      }),
    );
    const marker = unmarshall(Item ?? {});
    expect(marker).toMatchObject({ name: 'bad', idx: 0, threw: true, error: 'PermanentError' });
    expect(marker).not.toHaveProperty('result');
    expect(marker[TableSchema.TTL_ATTRIBUTE]).toBeGreaterThan(Date.now() / 1000);
  });

  it('runs each step once on a replay when a caught throw left a gap in the first window', async () => {
    // 105 positions: step 5 throws and is caught (no stored result there), so the first
    // window of 100 holds 99 steps; the steps stored at 100 and on must be read, not run again.
    const calls = new Map<string, number>();
    let runs = 0;
    const task = defineTask('durable.steps.gap-window', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 0 },
      handler: async (_payload, ctx) => {
        runs += 1;
        let sum = 0;
        for (let n = 0; n < 105; n++) {
          const name = `s${n}`;
          try {
            sum += await ctx.step(name, () => {
              calls.set(name, (calls.get(name) ?? 0) + 1);
              if (n === 5) throw new Error('caught');
              return n;
            });
          } catch {
            // the handler goes on without it
          }
        }
        if (runs === 1) throw new Error('transient: replay every step');
        return sum;
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 60_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(runs).toBe(2);
    expect(record.result).toBe((104 * 105) / 2 - 5);
    const ranTwice = [...calls].filter(([name, n]) => name !== 's5' && n !== 1);
    expect(ranTwice).toEqual([]);
    expect(calls.get('s5')).toBe(2);
    expect((await client.get(id, { steps: true }))?.steps).toHaveLength(104);
  }, 90_000);

  it('runs each step once on a replay when two caught throws end the first window', async () => {
    // Steps 98 and 99 throw on every run and are caught: the first window's last two
    // positions hold no result. The steps stored at 100 and on must be read, not run again.
    const calls = new Map<string, number>();
    let runs = 0;
    const task = defineTask('durable.steps.throws-at-window-end', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 0 },
      handler: async (_payload, ctx) => {
        runs += 1;
        let sum = 0;
        for (let n = 0; n < 103; n++) {
          const name = `s${n}`;
          try {
            sum += await ctx.step(name, () => {
              calls.set(name, (calls.get(name) ?? 0) + 1);
              if (n === 98 || n === 99) throw new Error('caught');
              return n;
            });
          } catch {
            // the handler goes on without it
          }
        }
        if (runs === 1) throw new Error('transient: replay every step');
        return sum;
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 60_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(runs).toBe(2);
    expect(record.result).toBe((102 * 103) / 2 - 98 - 99);
    const thrown = new Set(['s98', 's99']);
    const ranTwice = [...calls].filter(([name, n]) => !thrown.has(name) && n !== 1);
    expect(ranTwice).toEqual([]);
    // A step that threw is not memoized: it runs again on the replay.
    expect(calls.get('s98')).toBe(2);
    expect(calls.get('s99')).toBe(2);
    const steps = (await client.get(id, { steps: true }))?.steps ?? [];
    expect(steps).toHaveLength(101);
    expect(steps.some((s) => thrown.has(s.name))).toBe(false);
  }, 90_000);

  it('runs a caught step that threw again on a replay, and stores its result then', async () => {
    const calls = { flaky: 0, after: 0 };
    let runs = 0;
    const task = defineTask('durable.steps.throw-then-succeed', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 0 },
      handler: async (_payload, ctx) => {
        runs += 1;
        let flaky = 'none';
        try {
          flaky = await ctx.step('flaky', () => {
            calls.flaky += 1;
            if (calls.flaky === 1) throw new Error('first call fails');
            return 'ok';
          });
        } catch {
          // the handler goes on without it
        }
        const after = await ctx.step('after', () => {
          calls.after += 1;
          return 'after';
        });
        if (runs === 1) throw new Error('transient: replay');
        return [flaky, after];
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual(['ok', 'after']);
    expect(calls).toEqual({ flaky: 2, after: 1 });
    const steps = (await client.get(id, { steps: true }))?.steps;
    expect(steps?.map((s) => [s.index, s.name, s.attempt])).toEqual([
      [0, 'flaky', 2],
      [1, 'after', 1],
    ]);
  });

  it('gives the steps of one Promise.all their positions in call order when a beat is due', async () => {
    let skew = 0;
    let runs = 0;
    const task = defineTask('durable.steps.all-beat', {
      schema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 0 },
      handler: async (_payload, ctx) => {
        runs += 1;
        await ctx.step('first', () => 0);
        // The lease's last write now looks older than STEP_BEAT_MS: each step beats first.
        skew += 11_000;
        const all = await Promise.all([
          ctx.step('a', () => 'a'),
          ctx.step('b', () => 'b'),
          ctx.step('c', () => 'c'),
        ]);
        if (runs === 1) throw new Error('transient: replay them');
        return all;
      },
    });
    runWorker(task, { clock: () => Date.now() + skew });
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(runs).toBe(2);
    expect(record.result).toEqual(['a', 'b', 'c']);
    const steps = (await client.get(id, { steps: true }))?.steps;
    expect(steps?.map((s) => [s.index, s.name])).toEqual([
      [0, 'first'],
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
  });
});
