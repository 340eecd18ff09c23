/**
 * Two breaks the feature model found where a delayed enqueue's CreateSchedule is slow
 * (docs/adr/0038-model-found-enqueue-and-purge-fixes.md): a retry whose own CreateSchedule
 * fails, and a cancel, each while the first call waits on its CreateSchedule.
 */
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

describe('TaskClient.enqueue with runAt, retried while the first call waits on its CreateSchedule', () => {
  it("throws ScheduleFailedError when the retry's own CreateSchedule fails, and rolls the task back", async () => {
    // Arrange
    const runAt = new Date(Date.now() + HOUR);
    const slow = heldScheduler('succeed');
    const first = executor
      .client({ scheduler: slow.client })
      .enqueue(reminder, { note: 'renew passport' }, { id: 'passport', runAt });
    await slow.reached;
    const throttled = heldScheduler('fail');
    throttled.open();

    // Act
    const retryError = await executor
      .client({ scheduler: throttled.client })
      .enqueue(reminder, { note: 'renew passport' }, { id: 'passport', runAt })
      .catch((err: unknown) => err);
    slow.open();
    const firstError = await first.catch((err: unknown) => err);

    // Assert
    expect(retryError).toBeInstanceOf(ScheduleFailedError);
    expect(firstError).toBeInstanceOf(ScheduleFailedError);
    expect(await executor.client().get('passport')).toMatchObject({
      status: TaskStatus.ROLLED_BACK,
    });
    expect(await delayedScheduleExists(executor, 'passport')).toBe(false);
  });

  it('lets the id be enqueued afresh after both calls failed', async () => {
    // Arrange
    const runAt = new Date(Date.now() + HOUR);
    const slow = heldScheduler('succeed');
    const first = executor
      .client({ scheduler: slow.client })
      .enqueue(reminder, { note: 'book dentist' }, { id: 'dentist', runAt });
    await slow.reached;
    const throttled = heldScheduler('fail');
    throttled.open();
    await executor
      .client({ scheduler: throttled.client })
      .enqueue(reminder, { note: 'book dentist' }, { id: 'dentist', runAt })
      .catch(() => undefined);
    slow.open();
    await first.catch(() => undefined);

    // Act
    const again = await executor
      .client()
      .enqueue(reminder, { note: 'book dentist' }, { id: 'dentist', runAt });

    // Assert
    expect(again).toMatchObject({ created: true, sent: true });
    expect(again.record).toMatchObject({ status: TaskStatus.SCHEDULED, scheduleConfirmed: true });
    expect(await delayedScheduleExists(executor, 'dentist')).toBe(true);
  });
});

describe('TaskClient.enqueue with runAt, cancelled while its CreateSchedule is under way', () => {
  it('returns the CANCELLED record as it is, not the SCHEDULED record it wrote', async () => {
    // Arrange
    const runAt = new Date(Date.now() + HOUR);
    const slow = heldScheduler('succeed');
    const enqueue = executor
      .client({ scheduler: slow.client })
      .enqueue(reminder, { note: 'pick up parcel' }, { id: 'parcel', runAt });
    await slow.reached;
    await executor.client().cancel('parcel');

    // Act
    slow.open();
    const result = await enqueue;

    // Assert
    expect(result).toMatchObject({ id: 'parcel', created: true });
    expect(result.record.status).toBe(TaskStatus.CANCELLED);
    expect(await executor.client().get('parcel')).toMatchObject({
      status: TaskStatus.CANCELLED,
    });
  });

  it('leaves no schedule to fire for the cancelled task', async () => {
    // Arrange
    const runAt = new Date(Date.now() + HOUR);
    const slow = heldScheduler('succeed');
    const enqueue = executor
      .client({ scheduler: slow.client })
      .enqueue(reminder, { note: 'return books' }, { id: 'books', runAt });
    await slow.reached;
    await executor.client().cancel('books');

    // Act
    slow.open();
    await enqueue;

    // Assert
    expect(await delayedScheduleExists(executor, 'books')).toBe(false);
  });
});
