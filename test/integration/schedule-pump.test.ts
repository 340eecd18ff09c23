import { getEventListeners } from 'node:events';
import {
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  ListSchedulesCommand,
} from '@aws-sdk/client-scheduler';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const MINUTE = 60_000;

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** A whole minute a few minutes ahead of real time (moto rejects a past StartDate for cron). */
function fakeClock() {
  const state = { now: Math.ceil(Date.now() / MINUTE) * MINUTE + 5 * MINUTE };
  return { state, clock: () => state.now };
}

async function createSchedule(
  name: string,
  fields: Partial<CreateScheduleCommandInput> & { ScheduleExpression: string },
): Promise<void> {
  await executor.clients.scheduler.send(
    new CreateScheduleCommand({
      Name: name,
      GroupName: executor.scheduler.scheduleGroup,
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: executor.queueArn,
        RoleArn: executor.scheduler.schedulerRoleArn,
        Input: `${name} <aws.scheduler.scheduled-time>`,
        SqsParameters: { MessageGroupId: `group-${name}` },
      },
      ...fields,
    }),
  );
}

async function receiveAll(): Promise<{ body: string; group: string | undefined }[]> {
  const out: { body: string; group: string | undefined }[] = [];
  for (;;) {
    const page = await executor.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: executor.queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 300,
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );
    if ((page.Messages ?? []).length === 0) return out;
    for (const m of page.Messages ?? []) {
      out.push({ body: m.Body ?? '', group: m.Attributes?.MessageGroupId });
    }
  }
}

describe('createSchedulePump', () => {
  it('substitutes the context attributes and sends in the target message group', async () => {
    // Arrange
    const { state, clock } = fakeClock();
    await createSchedule('ctx', {
      ScheduleExpression: 'rate(1 hour)',
      StartDate: new Date(state.now + MINUTE),
      Target: {
        Arn: executor.queueArn,
        RoleArn: executor.scheduler.schedulerRoleArn,
        Input:
          '{"t":"<aws.scheduler.scheduled-time>","e":"<aws.scheduler.execution-id>","n":"<aws.scheduler.attempt-number>","a":"<aws.scheduler.schedule-arn>"}',
        SqsParameters: { MessageGroupId: 'ctx-group' },
      },
    });
    const pump = executor.pump({ clock });

    // Act
    state.now += MINUTE;
    const tick = await pump.tick();
    const [message] = await receiveAll();

    // Assert
    expect(tick.deliveries).toHaveLength(1);
    expect(message?.group).toBe('ctx-group');
    const body = JSON.parse(message?.body ?? '{}');
    expect(body).toEqual({
      t: new Date(state.now).toISOString().replace('.000Z', 'Z'),
      e: tick.deliveries[0]?.executionId,
      n: '1',
      a: expect.stringMatching(/:schedule\/.+\/ctx$/),
    });
  });

  it('respects StartDate, EndDate and State DISABLED', async () => {
    const { state, clock } = fakeClock();
    const start = state.now + 10 * MINUTE;
    await createSchedule('windowed', {
      ScheduleExpression: 'rate(5 minutes)',
      StartDate: new Date(start),
      EndDate: new Date(start + 15 * MINUTE),
    });
    await createSchedule('disabled', { ScheduleExpression: 'rate(1 minute)', State: 'DISABLED' });
    const pump = executor.pump({ clock });

    state.now = start + 60 * MINUTE;
    const tick = await pump.tick();

    expect(tick.deliveries.map((d) => [d.schedule, d.scheduledAt - start])).toEqual([
      ['windowed', 0],
      ['windowed', 5 * MINUTE],
      ['windowed', 10 * MINUTE],
    ]);
  });

  it('fires a cron in its time zone', async () => {
    // Every day at 09:30 in Tokyo (UTC+9, no DST)
    const { state, clock } = fakeClock();
    await createSchedule('tokyo', {
      ScheduleExpression: 'cron(30 9 * * ? *)',
      ScheduleExpressionTimezone: 'Asia/Tokyo',
    });
    const pump = executor.pump({ clock });

    state.now += 3 * 24 * 60 * MINUTE;
    const tick = await pump.tick();

    expect(tick.deliveries.length).toBeGreaterThanOrEqual(2);
    for (const d of tick.deliveries) {
      expect(new Date(d.scheduledAt).toISOString().slice(11, 19)).toBe('00:30:00');
    }
  });

  it('delivers a one-time schedule once, however late, and deletes it when asked to', async () => {
    // Arrange
    const { state, clock } = fakeClock();
    const at = new Date(state.now + MINUTE).toISOString().slice(0, 19);
    await createSchedule('once-delete', {
      ScheduleExpression: `at(${at})`,
      ActionAfterCompletion: 'DELETE',
    });
    await createSchedule('once-keep', {
      ScheduleExpression: `at(${at})`,
      ActionAfterCompletion: 'NONE',
    });
    const pump = executor.pump({ clock });

    // Act
    state.now += 30 * MINUTE;
    const first = await pump.tick();
    state.now += MINUTE;
    const second = await pump.tick();

    // Assert
    expect(first.deliveries.map((d) => d.schedule).sort()).toEqual(['once-delete', 'once-keep']);
    expect(first.deleted).toEqual(['once-delete']);
    expect(second.deliveries).toEqual([]);
    const left = await executor.clients.scheduler.send(
      new ListSchedulesCommand({ GroupName: executor.scheduler.scheduleGroup }),
    );
    expect(left.Schedules?.map((s) => s.Name)).toEqual(['once-keep']);
    expect((await receiveAll()).map((m) => m.group).sort()).toEqual([
      'group-once-delete',
      'group-once-keep',
    ]);
  });

  it('never delivers recurring firings from before it started', async () => {
    // A schedule that would have fired every minute for the past hour
    const { state, clock } = fakeClock();
    await createSchedule('backlog', { ScheduleExpression: 'rate(1 minute)' });
    state.now += 60 * MINUTE;
    const pump = executor.pump({ clock });

    const tick = await pump.tick();

    expect(tick.deliveries).toEqual([]);
  });
});

describe('SchedulePump.run', () => {
  it('removes its abort listener after each pause, however many ticks it runs', async () => {
    // Arrange
    const stopping = new AbortController();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    let ticks = 0;
    const listeners: number[] = [];
    const pump = executor.pump();

    // Act
    const running = pump.run({
      signal: stopping.signal,
      intervalMs: 1,
      onTick: () => {
        ticks += 1;
        listeners.push(getEventListeners(stopping.signal, 'abort').length);
        if (ticks === 30) stopping.abort();
      },
    });
    await running;
    process.off('warning', onWarning);

    // Assert
    expect(ticks).toBe(30);
    expect(Math.max(...listeners)).toBe(0);
    expect(getEventListeners(stopping.signal, 'abort')).toHaveLength(0);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
