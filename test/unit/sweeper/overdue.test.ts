import { describe, expect, it } from 'vitest';
import { Defaults } from '../../../src/core/constants.js';
import { ValidationError } from '../../../src/core/errors.js';
import { createSweeper } from '../../../src/sweeper/create-sweeper.js';
import { overdueBefore } from '../../../src/sweeper/overdue.js';

const NOW = 1_700_000_000_000;

describe('overdueBefore', () => {
  it('is now minus 6 hours by default', () => {
    expect(overdueBefore(NOW)).toBe(NOW - 6 * 3_600_000);
    expect(Defaults.QUEUED_OVERDUE_MS).toBe(6 * 3_600_000);
  });

  it('is now minus the given threshold', () => {
    expect(overdueBefore(NOW, 60_000)).toBe(NOW - 60_000);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects a threshold of %s', (ms) => {
    expect(() => overdueBefore(NOW, ms)).toThrow(ValidationError);
    expect(() => overdueBefore(NOW, ms)).toThrow(
      `queuedOverdueMs: expected a positive integer number of milliseconds, received ${ms}`,
    );
  });
});

describe('createSweeper', () => {
  it('rejects an invalid queuedOverdueMs when it is created, not at its first run', () => {
    expect(() =>
      createSweeper({ tableName: 't', queueUrl: 'https://sqs.local/q.fifo', queuedOverdueMs: 0 }),
    ).toThrow(ValidationError);
  });

  it('rejects an invalid retention when it is created', () => {
    expect(() =>
      createSweeper({ tableName: 't', queueUrl: 'https://sqs.local/q.fifo', retention: 10 }),
    ).toThrow(ValidationError);
  });
});
