/**
 * Each schedule group delivers as its own role (docs/adr/0036-trust-model-hardening.md): a
 * producer may create one-time schedules in the delayed group, so a firing delivered from
 * there is a forgery, however well it names a recurring schedule. The pump signs each group's
 * deliveries with that group's stand-in key id, as SQS reports each role's id as SenderId.
 */
import { CreateScheduleCommand } from '@aws-sdk/client-scheduler';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent } from '../../src/core/constants.js';
import { formatScheduledTime } from '../../src/scheduler/occurrences.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { recordingLogger, setupExecutor, type TestExecutor } from '../helpers/executor.js';

const MINUTE = 60_000;

let executor: TestExecutor;
let runs: string[];
const report = defineTask('report', {
  schema: z.object({ to: z.string() }),
  handler: ({ to }) => {
    runs.push(to);
  },
});

/** A clock the test moves by hand. */
function fakeClock() {
  const state = { now: Date.now() };
  return { state, clock: () => state.now };
}

beforeEach(async () => {
  executor = await setupExecutor();
  runs = [];
});

/** What a producer can do with its grant: a one-time schedule in the delayed group. */
async function forgeInDelayedGroup(roleArn: string, scheduledAt: number, now: number) {
  const firing = {
    tasklane: 1,
    kind: 'firing',
    schedule: 'nightly',
    scheduledTime: formatScheduledTime(scheduledAt),
    execution: { id: 'forged', attempt: '1' },
    type: 'report',
    payload: { to: 'attacker' },
  };
  await executor.clients.scheduler.send(
    new CreateScheduleCommand({
      Name: 'task.forged',
      GroupName: executor.scheduler.delayedScheduleGroup,
      ScheduleExpression: `at(${new Date(now).toISOString().slice(0, 19)})`,
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: executor.queueArn,
        RoleArn: roleArn,
        Input: JSON.stringify(firing),
        SqsParameters: { MessageGroupId: 'nightly' },
      },
    }),
  );
  return `nightly@${firing.scheduledTime}`;
}

describe('firing admission by delivery role', () => {
  it("rejects a firing a producer's one-time schedule delivered as the delayed role", async () => {
    const { state, clock } = fakeClock();
    const id = await forgeInDelayedGroup(
      executor.scheduler.delayedSchedulerRoleArn,
      state.now + MINUTE,
      state.now,
    );
    const logger = recordingLogger();

    const tick = await executor.pump({ clock }).tick(state.now + 1000);
    await executor.drain(executor.worker([report], { logger }));

    expect(tick.deliveries).toHaveLength(1);
    const rejected = logger.lines.filter((l) => l.attributes.event === AuditEvent.MESSAGE_REJECTED);
    expect(rejected[0]?.attributes.detail).toMatch(/delayed tasks' scheduler role/);
    expect(await executor.client().get(id)).toBeUndefined();
    expect(runs).toEqual([]);
  });

  it("does not deliver a delayed group's schedule that names the recurring role", async () => {
    const { state, clock } = fakeClock();
    const { schedulerRoleArn, delayedSchedulerRoleArn } = executor.scheduler;
    await forgeInDelayedGroup(schedulerRoleArn, state.now + MINUTE, state.now);
    const pump = executor.pump({
      clock,
      roles: { recurring: schedulerRoleArn, delayed: delayedSchedulerRoleArn },
    });

    const tick = await pump.tick(state.now + 1000);

    expect(tick.deliveries).toHaveLength(1);
    expect(tick.deliveries[0]?.messageId).toBeUndefined();
    expect(tick.deliveries[0]?.error).toMatch(/cannot assume/);
    expect(await executor.queueDepth()).toBe(0);
  });

  it("admits the recurring group's firings, delivered as the recurring role", async () => {
    const { state, clock } = fakeClock();
    const start = Math.ceil(state.now / MINUTE) * MINUTE;
    await executor
      .client()
      .schedules.set('nightly', { task: report, payload: { to: 'finance' }, cron: '* * * * ? *' });
    const pump = executor.pump({ clock, since: start - 1 });

    await pump.tick(start + 1000);
    await executor.drain(executor.worker([report]));

    expect(runs).toEqual(['finance']);
    expect((await executor.client().get(`nightly@${formatScheduledTime(start)}`))?.status).toBe(
      'SUCCEEDED',
    );
  });
});
