import { describe, expect, it } from 'vitest';
import { TaskClient } from '../../../src/client/task-client.js';
import { ValidationError } from '../../../src/core/errors.js';
import { MAX_SCHEDULE_THRESHOLD_MS, scheduleThreshold } from '../../../src/settings/location.js';

const HOUR = 3_600_000;

describe('scheduleThreshold', () => {
  it('defaults to one minute', () => {
    expect(scheduleThreshold(undefined)).toBe(60_000);
  });

  it('accepts 0 and the cap, which is well below the 12-hour visibility cap', () => {
    expect(scheduleThreshold(0)).toBe(0);
    expect(scheduleThreshold(MAX_SCHEDULE_THRESHOLD_MS)).toBe(MAX_SCHEDULE_THRESHOLD_MS);
    expect(MAX_SCHEDULE_THRESHOLD_MS).toBeLessThanOrEqual(HOUR);
  });

  it.each([12 * HOUR, MAX_SCHEDULE_THRESHOLD_MS + 1, -1, 1.5, Number.NaN, '60000'])(
    'rejects %s with a ValidationError naming the option and the range',
    (value) => {
      const attempt = () => scheduleThreshold(value);

      expect(attempt).toThrow(ValidationError);
      expect(attempt).toThrow(
        /scheduleThresholdMs: expected a whole number of milliseconds from 0 to 3600000/,
      );
    },
  );
});

describe('new TaskClient with scheduleThresholdMs', () => {
  it('refuses 12 hours before anything is sent', () => {
    const make = () =>
      new TaskClient({
        tableName: 'tasks',
        queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/tasks.fifo',
        scheduleThresholdMs: 12 * HOUR,
      });

    expect(make).toThrow(ValidationError);
  });
});
