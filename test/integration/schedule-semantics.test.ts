import {
  GetScheduleCommand,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ValidationError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let executor: TestExecutor;
const report = defineTask('report', {
  schema: z.object({ report: z.string() }),
  handler: () => {},
});

beforeEach(async () => {
  executor = await setupExecutor();
});

/** A Scheduler client that runs `action` once, right after its first `commandName` call. */
function interposed(commandName: string, action: () => Promise<void>): SchedulerClient {
  const client = new SchedulerClient({ region: 'us-east-1' });
  let done = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (!done && context.commandName === commandName) {
        done = true;
        await action();
      }
      return out;
    },
    { step: 'initialize', name: 'interposeConcurrentWriter' },
  );
  return client;
}

/** Another writer's UpdateSchedule: the schedule as read now, with a new payload and state. */
async function writeAsAnotherClient(
  name: string,
  change: { report?: string; state: 'ENABLED' | 'DISABLED' },
): Promise<void> {
  const scheduler = executor.clients.scheduler;
  const current = await scheduler.send(
    new GetScheduleCommand({ Name: name, GroupName: executor.scheduler.scheduleGroup }),
  );
  const input = current.Target?.Input ?? '';
  await scheduler.send(
    new UpdateScheduleCommand({
      Name: name,
      GroupName: executor.scheduler.scheduleGroup,
      ScheduleExpression: current.ScheduleExpression,
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        ...current.Target,
        Arn: current.Target?.Arn ?? '',
        RoleArn: current.Target?.RoleArn ?? '',
        Input:
          change.report === undefined
            ? input
            : input.replace(/"report":"[^"]*"/, `"report":"${change.report}"`),
      },
      State: change.state,
    }),
  );
}

describe('TaskClient.schedules.set on an existing schedule', () => {
  it('keeps a paused schedule paused when paused is not given', async () => {
    const client = executor.client();
    await client.schedules.set('nightly', {
      cron: '0 2 * * ? *',
      task: report,
      payload: { report: 'a' },
    });
    await client.schedules.pause('nightly');

    await client.schedules.set('nightly', {
      cron: '0 3 * * ? *',
      task: report,
      payload: { report: 'b' },
    });

    expect(await client.schedules.get('nightly')).toMatchObject({
      state: 'DISABLED',
      expression: 'cron(0 3 * * ? *)',
      payload: { report: 'b' },
    });
  });

  it('resumes or pauses it when paused is given', async () => {
    const client = executor.client();
    const options = { cron: '0 2 * * ? *', task: report, payload: { report: 'a' } };
    await client.schedules.set('nightly', options);
    await client.schedules.pause('nightly');

    await client.schedules.set('nightly', { ...options, paused: false });
    const resumed = await client.schedules.get('nightly');
    await client.schedules.set('nightly', { ...options, paused: true });
    const paused = await client.schedules.get('nightly');

    expect(resumed?.state).toBe('ENABLED');
    expect(paused?.state).toBe('DISABLED');
  });
});

describe('an old startDate', () => {
  it('is re-anchored on the next firing of the rate when the schedule is paused, resumed or re-declared', async () => {
    // Arrange: created with a start a minute ahead; then 3 hours and 7 minutes go by.
    const state = { now: Math.ceil(Date.now() / MINUTE) * MINUTE + 5 * MINUTE };
    const client = executor.client({ clock: () => state.now });
    const startDate = new Date(state.now + MINUTE);
    const options = { rate: '5 minutes', task: report, payload: { report: 'r' }, startDate };
    await client.schedules.set('every-5', options);
    state.now += 3 * HOUR + 7 * MINUTE;
    const onPhase = (d: Date | undefined) =>
      ((d?.getTime() ?? 0) - startDate.getTime()) % (5 * MINUTE);

    // Act
    await client.schedules.pause('every-5');
    const afterPause = await client.schedules.get('every-5');
    await client.schedules.resume('every-5');
    const afterResume = await client.schedules.get('every-5');
    const redeclared = await client.schedules.set('every-5', options);
    const afterRedeclare = await client.schedules.get('every-5');

    // Assert: never in the past (Scheduler refuses more than 5 minutes), always on the phase.
    for (const details of [afterPause, afterResume, afterRedeclare]) {
      expect(details?.startDate?.getTime()).toBeGreaterThanOrEqual(state.now);
      expect(details?.startDate?.getTime()).toBeLessThan(state.now + 5 * MINUTE);
      expect(onPhase(details?.startDate)).toBe(0);
    }
    expect(afterPause?.state).toBe('DISABLED');
    expect(afterResume?.state).toBe('ENABLED');
    expect(redeclared.created).toBe(false);
  });

  it('does not stop a schedule from being created: the rate keeps its phase, a cron drops it', async () => {
    const client = executor.client();
    const now = Date.now();
    const startDate = new Date(Math.floor(now / HOUR) * HOUR - 30 * 24 * HOUR + 17 * MINUTE);

    await client.schedules.set('hourly', {
      rate: '1 hour',
      task: report,
      payload: { report: 'r' },
      startDate,
    });
    await client.schedules.set('daily', {
      cron: '0 9 * * ? *',
      task: report,
      payload: { report: 'r' },
      startDate,
    });
    const hourly = await client.schedules.get('hourly');
    const daily = await client.schedules.get('daily');

    expect(hourly?.startDate?.getTime()).toBeGreaterThanOrEqual(now);
    expect(((hourly?.startDate?.getTime() ?? 0) - startDate.getTime()) % HOUR).toBe(0);
    expect(daily?.startDate).toBeUndefined();
  });
});

describe('concurrent writers of one schedule', () => {
  it('a pause is not undone by an update that read the schedule before it', async () => {
    await executor
      .client()
      .schedules.set('job', { rate: '5 minutes', task: report, payload: { report: 'a' } });
    const scheduler = interposed('UpdateScheduleCommand', () =>
      writeAsAnotherClient('job', { report: 'b', state: 'ENABLED' }),
    );
    const client = executor.client({ scheduler });

    await client.schedules.pause('job');

    // Both writers' intents stand.
    expect(await client.schedules.get('job')).toMatchObject({
      state: 'DISABLED',
      payload: { report: 'b' },
    });
  });

  it('an update is not undone by a pause that read the schedule before it', async () => {
    await executor
      .client()
      .schedules.set('job', { rate: '5 minutes', task: report, payload: { report: 'a' } });
    const scheduler = interposed('UpdateScheduleCommand', () =>
      writeAsAnotherClient('job', { report: 'a', state: 'DISABLED' }),
    );
    const client = executor.client({ scheduler });

    await client.schedules.set('job', {
      rate: '5 minutes',
      task: report,
      payload: { report: 'b' },
    });

    expect(await client.schedules.get('job')).toMatchObject({
      state: 'DISABLED',
      payload: { report: 'b' },
    });
  });
});

describe('input that used to escape validation', () => {
  it.each([
    ['a delay beyond any date', { delay: 8e15 }, 'options.delay'],
    ['the latest JavaScript date', { runAt: new Date(8.64e15) }, 'options.runAt'],
  ])('rejects %s with a ValidationError naming the latest time', async (_, options, path) => {
    const error = await executor
      .client()
      .enqueue(report, { report: 'r' }, options)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      {
        path,
        message: expect.stringContaining('expected a time no later than 2199-12-31T23:59:59.000Z'),
      },
    ]);
  });

  it('rejects a startDate beyond 2199 and a cron over 256 characters', async () => {
    const minutes = Array.from({ length: 60 }, (_, i) => i).join(',');
    const hours = Array.from({ length: 24 }, (_, i) => i).join(',');

    const error = await executor
      .client()
      .schedules.set('too-much', {
        cron: `${minutes} ${hours} ${Array.from({ length: 31 }, (_, i) => i + 1).join(',')} * ? *`,
        task: report,
        payload: { report: 'r' },
        startDate: new Date(8.64e15),
      })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ValidationError);
    const paths = (error as ValidationError).issues.map((i) => i.path);
    expect(paths).toEqual(['cron', 'startDate']);
  });

  it.each(['CET', 'EST5EDT', 'GMT'])('accepts the time zone %s', async (timezone) => {
    const client = executor.client();

    await client.schedules.set('zoned', {
      cron: '0 9 * * ? *',
      timezone,
      task: report,
      payload: { report: 'r' },
    });

    expect((await client.schedules.get('zoned'))?.timezone).toBe(timezone);
  });
});
