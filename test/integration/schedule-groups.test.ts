import { GetScheduleCommand, ListSchedulesCommand } from '@aws-sdk/client-scheduler';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { delayedScheduleName } from '../../src/scheduler/names.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const MINUTE = 60_000;
const PENDING_DELAYED = 120;
const KEY_ARN = 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555';

const remind = defineTask('remind', {
  schema: z.object({ note: z.string() }),
  handler: () => {},
});

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** One ListSchedules call on `group`: its names and whether it has more pages. */
async function firstPage(group: string): Promise<{ names: string[]; more: boolean }> {
  const page = await executor.clients.scheduler.send(
    new ListSchedulesCommand({ GroupName: group }),
  );
  return {
    names: (page.Schedules ?? []).map((s) => s.Name ?? '').sort(),
    more: page.NextToken !== undefined && page.NextToken !== '',
  };
}

describe('schedule groups', () => {
  it('lists only the recurring schedules, in one page, while many delayed tasks are pending', async () => {
    // Arrange
    const client = executor.client();
    const runAt = new Date(Date.now() + 60 * MINUTE);
    for (let i = 0; i < PENDING_DELAYED; i += 10) {
      await client.enqueueBatch(
        Array.from({ length: 10 }, (_, j) => ({
          task: remind,
          payload: { note: `n${i + j}` },
          options: { id: `later-${i + j}`, runAt },
        })),
      );
    }
    for (const name of ['nightly', 'hourly']) {
      await client.schedules.set(name, { rate: '1 hour', task: remind, payload: { note: name } });
    }

    // Act
    const listed = await client.schedules.list();
    const recurringGroup = await firstPage(executor.scheduler.scheduleGroup);

    // Assert
    expect(listed.map((s) => s.name)).toEqual(['hourly', 'nightly']);
    expect(recurringGroup).toEqual({ names: ['hourly', 'nightly'], more: false });
    const all = await client.schedules.list({ includeDelayed: true });
    expect(all.filter((s) => s.kind === 'delayed')).toHaveLength(PENDING_DELAYED);
    const page = await client.listByStatus(TaskStatus.SCHEDULED, { limit: 1000 });
    expect(page.items).toHaveLength(PENDING_DELAYED);
  });

  it('puts a delayed task’s one-time schedule in the delayed group, `<group>.at`', async () => {
    // Arrange
    const client = executor.client();

    // Act
    await client.enqueue(
      remind,
      { note: 'x' },
      { id: 'apart', runAt: new Date(Date.now() + 30 * MINUTE) },
    );

    // Assert
    expect(executor.scheduler.delayedScheduleGroup).toBe(`${executor.scheduler.scheduleGroup}.at`);
    expect(await firstPage(executor.scheduler.delayedScheduleGroup)).toEqual({
      names: [delayedScheduleName('apart')],
      more: false,
    });
    expect((await firstPage(executor.scheduler.scheduleGroup)).names).toEqual([]);
  });

  it('delivers a delayed task from its own group through the schedule pump', async () => {
    // Arrange
    const state = { now: Date.now() };
    const clock = () => state.now;
    const client = executor.client({ clock });
    await client.enqueue(
      remind,
      { note: 'x' },
      { id: 'pumped', runAt: new Date(state.now + 10 * MINUTE) },
    );
    const pump = executor.pump({ clock });

    // Act
    state.now += 11 * MINUTE;
    const tick = await pump.tick();

    // Assert
    expect(tick.deliveries.map((d) => d.schedule)).toEqual([delayedScheduleName('pumped')]);
    expect(tick.deleted).toEqual([delayedScheduleName('pumped')]);
    expect(await executor.queueDepth()).toBe(1);
  });
});

describe('TaskClient with scheduleKmsKeyArn', () => {
  it('creates delayed and recurring schedules encrypted with the key', async () => {
    // Arrange
    const client = executor.client({ scheduleKmsKeyArn: KEY_ARN });

    // Act
    await client.enqueue(
      remind,
      { note: 'x' },
      { id: 'sealed', runAt: new Date(Date.now() + 30 * MINUTE) },
    );
    await client.schedules.set('sealed-rate', {
      rate: '1 hour',
      task: remind,
      payload: { note: 'y' },
    });

    // Assert
    const delayed = await executor.clients.scheduler.send(
      new GetScheduleCommand({
        Name: delayedScheduleName('sealed'),
        GroupName: executor.scheduler.delayedScheduleGroup,
      }),
    );
    const recurring = await executor.clients.scheduler.send(
      new GetScheduleCommand({ Name: 'sealed-rate', GroupName: executor.scheduler.scheduleGroup }),
    );
    expect(delayed.KmsKeyArn).toBe(KEY_ARN);
    expect(recurring.KmsKeyArn).toBe(KEY_ARN);
  });
});
