import { GetScheduleCommand } from '@aws-sdk/client-scheduler';
import { DeleteMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { noopMetrics } from '../../../src/observability/metrics.js';
import { wakeScheduleName } from '../../../src/scheduler/wakes.js';
import { StepStore } from '../../../src/store/steps.js';
import { createSweeper } from '../../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { heldScheduler } from '../../helpers/delayed-schedules.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';
import { eventually } from '../../helpers/executor.js';

useDurableExecutor();

/** What a test started beside the worker (a schedule pump), stopped when it ends. */
let stops: (() => void)[] = [];

afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

describe('ctx.sleep', () => {
  it('suspends the task without spending an attempt, replays its steps, then returns', async () => {
    const effects: string[] = [];
    const task = defineTask('durable.sleep.short', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.step('before', () => effects.push('before'));
        await ctx.sleep('nap', 2_000);
        await ctx.step('after', () => effects.push('after'));
        return { attempt: ctx.attempt };
      },
    });
    runWorker(task);
    const client = executor.client();

    const started = Date.now();
    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    const sleeping = await client.get(id);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(sleeping?.wait).toMatchObject({ kind: 'sleep', name: 'nap', step: 1 });
    expect(sleeping?.attempt).toBe(0);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(effects).toEqual(['before', 'after']);
    expect(record.result).toEqual({ attempt: 1 });
    expect(record.attempt).toBe(1);
    expect(record.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.SUSPENDED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
    const steps = (await client.get(id, { steps: true }))?.steps ?? [];
    expect(steps.map((s) => [s.name, s.kind])).toEqual([
      ['before', undefined],
      ['nap', 'sleep'],
      ['after', undefined],
    ]);
  });

  it('finds the steps a stale slice stored past the wait, though it reads only up to it first', async () => {
    const effects: string[] = [];
    const task = defineTask('durable.sleep.stale-steps', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.step('before', () => effects.push('before'));
        await ctx.sleep('nap', 1_500);
        const one = await ctx.step('after1', () => effects.push('after1'));
        const two = await ctx.step('after2', () => effects.push('after2'));
        return { one, two };
      },
    });
    runWorker(task);
    const client = executor.client();

    // A stale slice (its lease lost unnoticed) got past the sleep: its memo and two steps,
    // the last beyond the woken slice's first read (positions 0 to 2).
    const id = await sleepingWithStepsPastIt(task, [
      [2, 'after1', '"stale-1"'],
      [3, 'after2', '"stale-2"'],
    ]);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ one: 'stale-1', two: 'stale-2' });
    expect(effects).toEqual(['before']);
  });

  it('reads on past a gap after the wait when a slice already passed it (a step that threw is not stored)', async () => {
    const effects: string[] = [];
    const task = defineTask('durable.sleep.gap-after-wait', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.step('before', () => effects.push('before'));
        await ctx.sleep('nap', 1_500);
        try {
          await ctx.step('flaky', () => {
            effects.push('flaky');
            throw new Error('flaky failed');
          });
        } catch {
          // the handler goes on without it: nothing is stored at this position
        }
        const two = await ctx.step('after', () => effects.push('after'));
        return { two };
      },
    });
    runWorker(task);
    const client = executor.client();

    // A slice that passed the sleep stored its memo, its step at position 2 threw (a gap),
    // and it stored position 3: the woken slice's first read (0 to 2) ends on the gap.
    const id = await sleepingWithStepsPastIt(task, [[3, 'after', '"stored"']]);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ two: 'stored' });
    expect(effects).toEqual(['before', 'flaky']);
  });

  it('never sleeps twice for the same name: a retry after the wake replays the sleep', async () => {
    const sleeps: number[] = [];
    const task = defineTask('durable.sleep.memo', {
      schema: z.object({}),
      retry: { maxAttempts: 2, baseDelayMs: 0 },
      handler: async (_payload, ctx) => {
        const at = Date.now();
        await ctx.sleep('once', new Date(Date.now() + 1_500));
        sleeps.push(Date.now() - at);
        if (ctx.attempt === 1) throw new Error('fails after the sleep');
        return 'done';
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.attempt).toBe(2);
    // The woken run returned at once; the retry's replay too.
    expect(sleeps).toHaveLength(2);
    expect(sleeps.every((ms) => ms < 1_000)).toBe(true);
    expect(record.history.filter((h) => h.event === AuditEvent.SUSPENDED)).toHaveLength(1);
  });

  it('holds its ordering key while it sleeps: the key’s next task waits', async () => {
    const order: string[] = [];
    const task = defineTask('durable.sleep.keyed', {
      schema: z.object({ name: z.string() }),
      handler: async ({ name }, ctx) => {
        order.push(`${name} start`);
        if (name === 'first') await ctx.sleep('nap', 2_000);
        order.push(`${name} end`);
      },
    });
    runWorker(task);
    const client = executor.client();

    const first = await client.enqueue(task, { name: 'first' }, { orderingKey: 'sleep-key' });
    const second = await client.enqueue(task, { name: 'second' }, { orderingKey: 'sleep-key' });
    await client.wait(second.id, { timeoutMs: 30_000 });

    expect((await client.get(first.id))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(order).toEqual([
      'first start',
      'first start',
      'first end',
      'second start',
      'second end',
    ]);
  });

  it('ends the task DEAD for a duration that is not one, naming what was expected', async () => {
    const task = defineTask('durable.sleep.bad', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.sleep('nap', Number.NaN);
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.DEAD);
    expect(record.deadReason).toContain('expected a finite number of milliseconds from 0');
    expect(record.attempt).toBe(1);
  });
});

describe('a sleeping task', () => {
  it('is listed and counted as SUSPENDED, and cancelled at once, its key let go', async () => {
    const order: string[] = [];
    const task = defineTask('durable.sleep.cancelled', {
      schema: z.object({ name: z.string() }),
      handler: async ({ name }, ctx) => {
        order.push(name);
        if (name === 'sleeper') await ctx.sleep('long', 10 * 60_000);
      },
    });
    runWorker(task);
    const client = executor.client();

    const sleeper = await client.enqueue(task, { name: 'sleeper' }, { orderingKey: 'cancel-key' });
    const next = await client.enqueue(task, { name: 'next' }, { orderingKey: 'cancel-key' });
    await eventually(async () => (await client.get(sleeper.id))?.heldMessage !== undefined);
    const listed = await client.listByStatus(TaskStatus.SUSPENDED);
    const counts = await client.counts({ statuses: [TaskStatus.SUSPENDED] });
    const cancelled = await client.cancel(sleeper.id, 'no longer needed');
    // Its held message is let go: the key's next task runs now, not after the 10-minute hold.
    const after = await client.wait(next.id, { timeoutMs: 20_000 });

    expect(listed.items.map((t) => t.id)).toContain(sleeper.id);
    expect(counts.byStatus[TaskStatus.SUSPENDED]).toBeGreaterThanOrEqual(1);
    expect(cancelled.status).toBe(TaskStatus.CANCELLED);
    expect(cancelled.attempt).toBe(0);
    expect(after.status).toBe(TaskStatus.SUCCEEDED);
    expect(order).toEqual(['sleeper', 'next']);
  });
});

describe('cancelMany of an ordering key', () => {
  it('cancels the key’s sleeping task too, and lets its key go', async () => {
    const task = defineTask('durable.sleep.cancel-key', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.sleep('long', 10 * 60_000);
      },
    });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, {}, { orderingKey: 'cancel-many-key' });
    await eventually(async () => (await client.get(id))?.heldMessage !== undefined);
    const result = await client.cancelMany({ orderingKey: 'cancel-many-key' });

    expect(result.cancelled).toEqual([id]);
    expect((await client.get(id))?.status).toBe(TaskStatus.CANCELLED);
  });
});

describe('ctx.sleep beyond the schedule threshold', () => {
  it('releases the message and wakes by a one-time schedule in the delayed group', async () => {
    const task = defineTask('durable.sleep.scheduled', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.sleep('long', 3_000);
        return 'woken';
      },
    });
    const { scheduler } = executor;
    runWorker(task, {
      scheduleThresholdMs: 0,
      queueArn: executor.queueArn,
      scheduleGroup: scheduler.scheduleGroup,
      schedulerRoleArn: scheduler.schedulerRoleArn,
      delayedSchedulerRoleArn: scheduler.delayedSchedulerRoleArn,
      scheduleDeadLetterArn: scheduler.scheduleDeadLetterArn,
      scheduler: executor.clients.scheduler,
    });
    const pump = executor.pump();
    const pumping = setInterval(() => void pump.tick().catch(() => undefined), 500);
    stops.push(() => clearInterval(pumping));
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    const sleeping = await client.get(id);
    const schedules = executor.clients.scheduler;
    if (schedules === undefined) throw new Error('the emulator has no Scheduler client');
    const getWake = () =>
      schedules.send(
        new GetScheduleCommand({
          GroupName: scheduler.delayedScheduleGroup,
          Name: wakeScheduleName(id, sleeping?.createdAt ?? 0, sleeping?.generation ?? 0),
        }),
      );
    // The suspension is written first, then its wake is made, then its message released.
    await eventually(async () => (await getWake().catch(() => undefined)) !== undefined);
    const wake = await getWake();
    await eventually(async () => (await executor.queueDepth()) === 0, 3_000);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(sleeping?.heldMessage).toBeUndefined();
    expect(sleeping?.generation).toBe(2);
    // In the delayed group, delivered as the delayed tasks' role (ADR 0036).
    expect(wake.GroupName).toBe(scheduler.delayedScheduleGroup);
    expect(wake.Target?.RoleArn).toBe(scheduler.delayedSchedulerRoleArn);
    expect(wake.Target?.Arn).toBe(executor.queueArn);
    expect(wake.ScheduleExpression).toMatch(/^at\(/);
    expect(JSON.parse(wake.Target?.Input ?? '{}')).toEqual({
      tasklane: expect.any(Number),
      id,
      type: 'durable.sleep.scheduled',
      createdAt: sleeping?.createdAt,
      wake: 2,
    });
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toBe('woken');
  });
});

describe('ctx.sleep during an EventBridge Scheduler outage', () => {
  it('holds the message instead of the schedule: the task wakes on time, no attempt spent', async () => {
    const task = defineTask('durable.sleep.scheduler-outage', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.sleep('long', 3_000);
        return 'woken';
      },
    });
    const outage = heldScheduler('fail');
    outage.open();
    const { scheduler } = executor;
    runWorker(task, {
      scheduleThresholdMs: 0,
      queueArn: executor.queueArn,
      scheduleGroup: scheduler.scheduleGroup,
      schedulerRoleArn: scheduler.schedulerRoleArn,
      delayedSchedulerRoleArn: scheduler.delayedSchedulerRoleArn,
      scheduleDeadLetterArn: scheduler.scheduleDeadLetterArn,
      scheduler: outage.client,
    });
    const client = executor.client();

    const { id } = await client.enqueue(task, {});
    await outage.reached;
    await eventually(async () => (await client.get(id))?.heldMessage !== undefined);
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toBe('woken');
    expect(record.attempt).toBe(1);
    expect(record.history.map((h) => h.event)).toEqual([
      AuditEvent.SUBMITTED,
      AuditEvent.CLAIMED,
      AuditEvent.SUSPENDED,
      AuditEvent.CLAIMED,
      AuditEvent.SUCCEEDED,
    ]);
  });
});

describe('the sweeper', () => {
  it('wakes a suspended task whose wake was lost (its schedule never fired)', async () => {
    const task = defineTask('durable.sleep.lost-wake', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.sleep('long', 1_000);
        return 'woken';
      },
    });
    const { scheduler } = executor;
    // A wake schedule is made, but no pump delivers it: the wake is lost.
    runWorker(task, {
      scheduleThresholdMs: 0,
      queueArn: executor.queueArn,
      scheduleGroup: scheduler.scheduleGroup,
      schedulerRoleArn: scheduler.schedulerRoleArn,
      delayedSchedulerRoleArn: scheduler.delayedSchedulerRoleArn,
      scheduleDeadLetterArn: scheduler.scheduleDeadLetterArn,
      scheduler: executor.clients.scheduler,
    });
    const client = executor.client();
    const sweeper = createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      logger: silentLogger,
      metrics: noopMetrics,
      suspendedGraceMs: 0,
    });

    const { id } = await client.enqueue(task, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const report = await sweeper.run();
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(report.woken).toBe(1);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toBe('woken');
  });

  it('sends a keyed sleeper a new message when its held one was lost', async () => {
    const task = defineTask('durable.sleep.lost-held', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.sleep('nap', 1_500);
        return 'woken';
      },
    });
    runWorker(task);
    const client = executor.client();
    const sweeper = createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      logger: silentLogger,
      metrics: noopMetrics,
      suspendedGraceMs: 0,
    });

    const { id } = await client.enqueue(task, {}, { orderingKey: 'lost-held-key' });
    await eventually(async () => (await client.get(id))?.heldMessage !== undefined);
    const held = (await client.get(id))?.heldMessage;
    // The held message is lost (deleted behind the worker's back: as if its retention ended).
    await executor.clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: executor.queueUrl, ReceiptHandle: held?.receiptHandle }),
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const report = await sweeper.run();
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(report.woken).toBe(1);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toBe('woken');
    expect(record.attempt).toBe(1);
  });
});

/**
 * Enqueues `task` (a step, then a sleep named `nap`), waits until it sleeps at position 1,
 * then stores what an earlier slice that got past the sleep would have: the sleep's memo and
 * `steps` (position, name, result JSON). Returns the task's id.
 */
async function sleepingWithStepsPastIt(
  task: Parameters<ReturnType<typeof executor.client>['enqueue']>[0],
  steps: readonly (readonly [index: number, name: string, resultJson: string])[],
): Promise<string> {
  const client = executor.client();
  const { id } = await client.enqueue(task, {});
  await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
  expect((await client.get(id))?.wait).toMatchObject({ step: 1 });
  const earlier = { taskId: id, epoch: 0, attempt: 1, workerId: 'earlier-worker' };
  const until = JSON.stringify({ until: Date.now() });
  const memo = { index: 1, name: 'nap', kind: 'sleep' as const, resultJson: until };
  for (const step of [
    memo,
    ...steps.map(([index, name, resultJson]) => ({ index, name, resultJson })),
  ]) {
    await executor.store
      .feature(StepStore)
      .store({ ...earlier, ...step, sizeBytes: step.resultJson.length });
  }
  return id;
}
