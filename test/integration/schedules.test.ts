import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListSchedulesCommand } from '@aws-sdk/client-scheduler';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import {
  ConfigurationError,
  ScheduleNotFoundError,
  ValidationError,
} from '../../src/core/errors.js';
import type { TaskRecord } from '../../src/core/record.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let executor: TestExecutor;
let runs: { taskId: string; report: string }[];
const report = defineTask('report', {
  schema: z.object({ report: z.string() }),
  handler: ({ report }, ctx) => {
    runs.push({ taskId: ctx.taskId, report });
  },
});

beforeEach(async () => {
  executor = await setupExecutor();
  runs = [];
});

/** The fake time: a whole minute a little in the future, so StartDate is never in the past. */
function fakeClock() {
  const state = { now: Math.ceil(Date.now() / MINUTE) * MINUTE + 5 * MINUTE };
  return { state, clock: () => state.now };
}

/** Ticks the pump every minute over [from, to), processing the queue after each tick. */
async function simulate(
  state: { now: number },
  from: number,
  to: number,
  pump: ReturnType<TestExecutor['pump']>,
  worker: ReturnType<TestExecutor['worker']>,
): Promise<number> {
  let deliveries = 0;
  for (let t = from; t < to; t += MINUTE) {
    state.now = t;
    deliveries += (await pump.tick()).deliveries.length;
    await executor.drain(worker);
  }
  return deliveries;
}

async function tasksOf(schedule: string): Promise<TaskRecord[]> {
  const page = await executor.client().listByStatus(TaskStatus.SUCCEEDED, { limit: 1000 });
  return page.items.filter((r) => r.id.startsWith(`${schedule}@`));
}

async function itemCount(): Promise<number> {
  const out = await executor.clients.dynamodb.send(
    new ScanCommand({ TableName: executor.tableName, Select: 'COUNT' }),
  );
  return out.Count ?? 0;
}

async function scheduleCount(): Promise<number> {
  const out = await executor.clients.scheduler.send(
    new ListSchedulesCommand({ GroupName: executor.scheduler.scheduleGroup }),
  );
  return out.Schedules?.length ?? 0;
}

describe('TaskClient.schedules.set with a rate', () => {
  it('gives exactly 12 tasks for rate(5 minutes) over a simulated hour', async () => {
    // Arrange
    const { state, clock } = fakeClock();
    const start = state.now + MINUTE;
    const client = executor.client({ clock });
    await client.schedules.set('every-5', {
      rate: '5 minutes',
      task: report,
      payload: { report: 'queue depth' },
      startDate: new Date(start),
    });
    const pump = executor.pump({ clock });
    const worker = executor.worker([report], { clock });

    // Act
    const deliveries = await simulate(state, start, start + HOUR, pump, worker);

    // Assert
    expect(deliveries).toBe(12);
    expect(runs).toHaveLength(12);
    const tasks = await tasksOf('every-5');
    expect(tasks.map((t) => t.id).sort()).toEqual(
      Array.from(
        { length: 12 },
        (_, i) => `every-5@${new Date(start + i * 5 * MINUTE).toISOString().replace('.000Z', 'Z')}`,
      ),
    );
    expect(tasks.every((t) => t.history[0]?.detail?.includes('fired by schedule every-5'))).toBe(
      true,
    );
  });

  it('still gives 12 tasks, and records 12 idempotent no-ops, when every firing is delivered twice', async () => {
    // Arrange
    const { state, clock } = fakeClock();
    const start = state.now + MINUTE;
    const client = executor.client({ clock });
    await client.schedules.set('every-5', {
      rate: 'rate(5 minutes)',
      task: report,
      payload: { report: 'queue depth' },
      startDate: new Date(start),
    });
    const pump = executor.pump({ clock, deliveriesPerFiring: 2 });
    const worker = executor.worker([report], { clock });

    // Act
    const deliveries = await simulate(state, start, start + HOUR, pump, worker);

    // Assert
    expect(deliveries).toBe(24);
    expect(runs).toHaveLength(12);
    const tasks = await tasksOf('every-5');
    expect(tasks).toHaveLength(12);
    const noOps = tasks.flatMap((t) =>
      t.history.filter((h) => h.event === AuditEvent.DUPLICATE_DROPPED),
    );
    expect(noOps).toHaveLength(12);
    expect(noOps.every((h) => h.detail?.includes('duplicate firing of every-5'))).toBe(true);
    for (const task of tasks) {
      expect(task.history.filter((h) => h.event === AuditEvent.CLAIMED)).toHaveLength(1);
    }
  });

  it('produces nothing while paused, and resumes with the next firing', async () => {
    // Arrange
    const { state, clock } = fakeClock();
    const start = state.now + MINUTE;
    const client = executor.client({ clock });
    await client.schedules.set('paused-job', {
      rate: '5 minutes',
      task: report,
      payload: { report: 'r' },
      startDate: new Date(start),
    });
    const pump = executor.pump({ clock });
    const worker = executor.worker([report], { clock });

    // Act
    await client.schedules.pause('paused-job');
    const whilePaused = await simulate(state, start, start + HOUR, pump, worker);
    const listed = await client.schedules.list();
    await client.schedules.resume('paused-job');
    const afterResume = await simulate(
      state,
      start + HOUR,
      start + HOUR + 10 * MINUTE,
      pump,
      worker,
    );

    // Assert
    expect(whilePaused).toBe(0);
    expect(listed).toEqual([expect.objectContaining({ name: 'paused-job', state: 'DISABLED' })]);
    expect(afterResume).toBe(2);
    expect(runs).toHaveLength(2);
  });

  it('creates a schedule paused when asked to', async () => {
    const { state, clock } = fakeClock();
    const client = executor.client({ clock });
    await client.schedules.set('dormant', {
      rate: '1 minute',
      task: report,
      payload: { report: 'r' },
      paused: true,
    });

    const delivered = await simulate(
      state,
      state.now,
      state.now + 10 * MINUTE,
      executor.pump({ clock }),
      executor.worker([report], { clock }),
    );

    expect(delivered).toBe(0);
  });
});

describe('TaskClient.schedules.set with a cron in a time zone', () => {
  it('stores the expression, the zone and a firing input carrying the scheduled time', async () => {
    const client = executor.client();

    const result = await client.schedules.set('weekday-digest', {
      cron: '0 8 ? * MON-FRI *',
      timezone: 'Europe/Berlin',
      task: report,
      payload: { report: 'digest' },
      orderingKey: 'digests',
    });
    const details = await client.schedules.get('weekday-digest');

    expect(result).toMatchObject({ name: 'weekday-digest', created: true });
    expect(details).toMatchObject({
      expression: 'cron(0 8 ? * MON-FRI *)',
      timezone: 'Europe/Berlin',
      taskType: 'report',
      payload: { report: 'digest' },
      state: 'ENABLED',
      kind: 'recurring',
    });
    expect(details?.createdAt).toBeInstanceOf(Date);
    expect(details?.nextFirings).toHaveLength(3);
    for (const firing of details?.nextFirings ?? []) {
      expect(firing.at.getTime()).toBeGreaterThan(Date.now());
      expect(firing.taskId).toBe(`weekday-digest@${firing.at.toISOString().replace('.000Z', 'Z')}`);
    }
    // Created just now: no firing was due before it.
    expect(details?.recentFirings).toEqual([]);
  });

  it('updates a schedule of the same name instead of failing', async () => {
    const client = executor.client();
    await client.schedules.set('digest', {
      cron: '0 8 * * ? *',
      task: report,
      payload: { report: 'a' },
    });

    const again = await client.schedules.set('digest', {
      cron: '0 9 * * ? *',
      task: report,
      payload: { report: 'b' },
    });

    expect(again.created).toBe(false);
    expect(await client.schedules.get('digest')).toMatchObject({
      expression: 'cron(0 9 * * ? *)',
      payload: { report: 'b' },
    });
  });
});

describe('TaskClient.schedules.delete and schedules.list', () => {
  it('lists recurring schedules only, unless delayed ones are asked for, and deletes by name', async () => {
    const client = executor.client();
    await client.schedules.set('b-job', { rate: '1 hour', task: report, payload: { report: 'b' } });
    await client.schedules.set('a-job', { rate: '1 day', task: report, payload: { report: 'a' } });
    await client.enqueue(report, { report: 'later' }, { id: 'later', delay: 10 * MINUTE });

    const recurring = await client.schedules.list();
    const all = await client.schedules.list({ includeDelayed: true });
    const removed = await client.schedules.delete('a-job');
    const removedAgain = await client.schedules.delete('a-job');

    expect(recurring.map((s) => s.name)).toEqual(['a-job', 'b-job']);
    expect(all.map((s) => [s.name, s.kind])).toEqual([
      ['a-job', 'recurring'],
      ['b-job', 'recurring'],
      ['task.later', 'delayed'],
    ]);
    expect([removed, removedAgain]).toEqual([true, false]);
    expect((await client.schedules.list()).map((s) => s.name)).toEqual(['b-job']);
  });

  it('throws ScheduleNotFoundError when pausing a schedule that does not exist', async () => {
    await expect(executor.client().schedules.pause('nope')).rejects.toBeInstanceOf(
      ScheduleNotFoundError,
    );
  });
});

describe('a firing of an unknown task type', () => {
  it('becomes one DEAD task with a clear reason, not a retry loop', async () => {
    // The worker does not know 'report'
    const { state, clock } = fakeClock();
    const start = state.now + MINUTE;
    await executor.client({ clock }).schedules.set('orphan-job', {
      rate: '1 hour',
      task: report,
      payload: { report: 'r' },
      startDate: new Date(start),
    });
    const other = defineTask('other', { schema: z.object({}), handler: () => undefined });

    await simulate(
      state,
      start,
      start + MINUTE,
      executor.pump({ clock }),
      executor.worker([other], { clock }),
    );

    const dead = await executor.client().listByStatus(TaskStatus.DEAD);
    expect(dead.items).toHaveLength(1);
    expect(dead.items[0]?.deadReason).toContain("Unknown task type 'report'");
  });
});

describe('TaskClient.schedules.set and enqueue with bad input', () => {
  it.each([
    [
      'an invalid cron',
      { cron: '0 9 * * MON-FRI *' },
      'cron',
      "exactly one of day-of-month and day-of-week must be '?'",
    ],
    ['a cron with a bad field', { cron: '0 25 * * ? *' }, 'cron', 'hours'],
    ['an invalid rate', { rate: '5 seconds' }, 'rate', 'minute(s), hour(s) or day(s)'],
    [
      'an invalid time zone',
      { rate: '5 minutes', timezone: 'Europe/Atlantis' },
      'timezone',
      "expected an IANA time zone such as 'Europe/Berlin'",
    ],
    ['both cron and rate', { rate: '5 minutes', cron: '0 9 * * ? *' }, 'cron', 'exactly one'],
  ])(
    'rejects %s with a typed error naming what was expected, and writes nothing',
    async (_, input, path, expected) => {
      const client = executor.client();

      const error = await client.schedules
        .set('bad', { task: report, payload: { report: 'r' }, ...input })
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ValidationError);
      const issue = (error as ValidationError).issues.find((i) => i.path === path);
      expect(issue?.message).toContain(expected);
      expect((error as ValidationError).message).toContain(expected);
      expect(await scheduleCount()).toBe(0);
      expect(await itemCount()).toBe(0);
    },
  );

  it('rejects a name that is too long, saying the rule', async () => {
    const error = (await executor
      .client()
      .schedules.set('n'.repeat(65), { rate: '1 hour', task: report, payload: { report: 'r' } })
      .catch((e: unknown) => e)) as ValidationError;

    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([
      { path: 'name', message: expect.stringContaining('expected 1-64 characters') },
    ]);
    expect(error.message).toContain('65 characters');
    expect(await scheduleCount()).toBe(0);
  });

  it('reports every problem at once', async () => {
    const error = (await executor
      .client()
      .schedules.set('has space', {
        cron: 'cron(0 9 * *)',
        timezone: 'Nowhere',
        task: report,
        payload: { report: 42 } as unknown as { report: string },
      })
      .catch((e: unknown) => e)) as ValidationError;

    expect(error.issues.map((i) => i.path).sort()).toEqual([
      'cron',
      'name',
      'payload.report',
      'timezone',
    ]);
    expect(await scheduleCount()).toBe(0);
  });

  it('rejects a runAt that is not a date with ValidationError, and writes nothing', async () => {
    const client = executor.client();

    const error = (await client
      .enqueue(
        report,
        { report: 'r' },
        {
          id: 'bad-date',
          runAt: 'tomorrow' as unknown as Date,
        },
      )
      .catch((e: unknown) => e)) as ValidationError;

    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([
      { path: 'options.runAt', message: 'expected a valid Date, received string "tomorrow"' },
    ]);
    expect(await client.get('bad-date')).toBeUndefined();
    expect(await itemCount()).toBe(0);
    expect(await scheduleCount()).toBe(0);
  });

  it.each([
    ['an invalid Date', { runAt: new Date(Number.NaN) }, 'options.runAt', 'an invalid Date'],
    ['a negative delay', { delay: -1 }, 'options.delay', 'a whole number of milliseconds'],
    ['a fractional delay', { delay: 1.5 }, 'options.delay', 'a whole number of milliseconds'],
    ['both runAt and delay', { delay: 1000, runAt: new Date() }, 'options.delay', 'not both'],
  ])('rejects %s in the enqueue options', async (_, options, path, expected) => {
    const error = (await executor
      .client()
      .enqueue(report, { report: 'r' }, options)
      .catch((e: unknown) => e)) as ValidationError;

    expect(error.issues).toEqual([{ path, message: expect.stringContaining(expected) }]);
    expect(await itemCount()).toBe(0);
  });

  it('throws ConfigurationError for a delayed task when scheduling is not configured, and writes nothing', async () => {
    const client = executor.client({
      scheduleGroup: undefined,
      schedulerRoleArn: undefined,
      scheduleDeadLetterArn: undefined,
    });

    const error = await client
      .enqueue(report, { report: 'r' }, { id: 'unconfigured', delay: 10 * MINUTE })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('TASKLANE_SCHEDULE_GROUP');
    expect(await itemCount()).toBe(0);
  });
});
