import { describe, expect, it } from 'vitest';
import { Defaults } from '../../../src/core/constants.js';
import { ValidationError } from '../../../src/core/errors.js';
import {
  checkRetention,
  expiresAtSeconds,
  resolveRetention,
  retentionIssue,
} from '../../../src/settings/retention.js';

const DAY_MS = 24 * 60 * 60 * 1000;

function validationOf(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('checkRetention', () => {
  it.each([['forever'], [60_000], [30 * DAY_MS], [3650 * DAY_MS]] as const)('accepts %j', (v) => {
    expect(checkRetention(v)).toBe(v);
  });

  it.each([
    [0, 'received 0'],
    [-1, 'received -1'],
    [59_999, 'received 59999'],
    [3650 * DAY_MS + 1, `received ${3650 * DAY_MS + 1}`],
    [60_000.5, 'received 60000.5'],
    [Number.NaN, 'received NaN'],
    [Number.POSITIVE_INFINITY, 'received Infinity'],
  ])('rejects %j with a typed error naming what was expected', (value, received) => {
    const error = validationOf(() => checkRetention(value));

    expect(error.issues).toEqual([
      {
        path: 'retention',
        message: `expected 'forever' or an integer number of milliseconds from 60000 (1 minute) to 315360000000 (3650 days), ${received}`,
      },
    ]);
  });

  it('rejects a string other than forever, quoted', () => {
    expect(retentionIssue('30d')).toContain('received "30d"');
  });
});

describe('resolveRetention', () => {
  it('defaults to 30 days', () => {
    expect(resolveRetention(undefined, {})).toBe(30 * DAY_MS);
    expect(Defaults.RETENTION_MS).toBe(30 * DAY_MS);
  });

  it('prefers the option over TASKLANE_RETENTION_MS', () => {
    expect(resolveRetention('forever', { TASKLANE_RETENTION_MS: '60000' })).toBe('forever');
  });

  it.each([
    ['forever', 'forever'],
    ['86400000', 86_400_000],
    [' 60000 ', 60_000],
    ['', 30 * DAY_MS],
  ] as const)('reads TASKLANE_RETENTION_MS=%j', (raw, expected) => {
    expect(resolveRetention(undefined, { TASKLANE_RETENTION_MS: raw })).toBe(expected);
  });

  it.each(['30 days', '1e9', '-5', '10'])('rejects TASKLANE_RETENTION_MS=%j', (raw) => {
    const error = validationOf(() => resolveRetention(undefined, { TASKLANE_RETENTION_MS: raw }));

    expect(error.issues[0]?.path).toBe('TASKLANE_RETENTION_MS');
  });
});

describe('expiresAtSeconds', () => {
  it('is the finish time plus the retention, in epoch seconds', () => {
    expect(expiresAtSeconds(1_700_000_000_999, 60_000)).toBe(1_700_000_060);
  });

  it('is absent when tasks are kept forever', () => {
    expect(expiresAtSeconds(1_700_000_000_000, 'forever')).toBeUndefined();
  });
});
