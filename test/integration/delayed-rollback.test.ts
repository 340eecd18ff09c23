import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { ScheduleFailedError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { delayedScheduleExists, heldScheduler } from '../helpers/delayed-schedules.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const HOUR = 60 * 60_000;

let executor: TestExecutor;
const reminder = defineTask('reminder', {
  schema: z.object({ note: z.string() }),
  handler: () => undefined,
});

beforeEach(async () => {
  executor = await setupExecutor();
});

const scheduleExists = (taskId: string) => delayedScheduleExists(executor, taskId);

describe('TaskClient.enqueue with runAt, retried while the first call is still running', () => {
  it('keeps the task that the retry reported, though the first call then fails to schedule it', async () => {
    // The first call wrote the record and waits in CreateSchedule; the retry
    // finds the record, creates the schedule and reports the task enqueued.
    const runAt = new Date(Date.now() + HOUR);
    const slow = heldScheduler('fail');
    const first = executor
      .client({ scheduler: slow.client })
      .enqueue(reminder, { note: 'pay rent' }, { id: 'rent', runAt });
    await slow.reached;
    const retry = await executor
      .client()
      .enqueue(reminder, { note: 'pay rent' }, { id: 'rent', runAt });

    // The first call's CreateSchedule fails.
    slow.open();
    const outcome = await first;

    // Nothing was rolled back under the retry's feet, and both calls agree.
    expect(retry).toMatchObject({ created: false, sent: true });
    expect(outcome).toMatchObject({ id: 'rent', created: true, sent: true });
    const record = await executor.client().get('rent');
    expect(record).toMatchObject({ status: TaskStatus.SCHEDULED, scheduleConfirmed: true });
    expect(await scheduleExists('rent')).toBe(true);
  });

  it('fails the retry too when the first call rolled the task back before the retry confirmed it', async () => {
    // Both calls wait in CreateSchedule; the first will fail, the retry succeed.
    const runAt = new Date(Date.now() + HOUR);
    const failing = heldScheduler('fail');
    const succeeding = heldScheduler('succeed');
    const first = executor
      .client({ scheduler: failing.client })
      .enqueue(reminder, { note: 'water plants' }, { id: 'plants', runAt });
    await failing.reached;
    const retry = executor
      .client({ scheduler: succeeding.client })
      .enqueue(reminder, { note: 'water plants' }, { id: 'plants', runAt });
    await succeeding.reached;

    // The first call fails and rolls back; only then does the retry's schedule land.
    failing.open();
    const firstError = await first.catch((err: unknown) => err);
    succeeding.open();
    const retryError = await retry.catch((err: unknown) => err);

    // Neither call claims a task that does not exist, and nothing is left behind.
    expect(firstError).toBeInstanceOf(ScheduleFailedError);
    expect(retryError).toBeInstanceOf(ScheduleFailedError);
    expect(await executor.client().get('plants')).toMatchObject({
      status: TaskStatus.ROLLED_BACK,
    });
    expect(await scheduleExists('plants')).toBe(false);
  });

  it('lets a later enqueue of a rolled-back id start afresh', async () => {
    const runAt = new Date(Date.now() + HOUR);
    const failing = heldScheduler('fail');
    failing.open();
    await expect(
      executor
        .client({ scheduler: failing.client })
        .enqueue(reminder, { note: 'call mum' }, { id: 'mum', runAt }),
    ).rejects.toBeInstanceOf(ScheduleFailedError);

    const again = await executor
      .client()
      .enqueue(reminder, { note: 'call mum' }, { id: 'mum', runAt });

    expect(again).toMatchObject({ created: true, sent: true });
    expect(again.record.scheduleConfirmed).toBe(true);
    expect(await scheduleExists('mum')).toBe(true);
  });
});
