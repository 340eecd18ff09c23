import { describe, expect, it } from 'vitest';
import { parseScheduleExpression, timezoneProblem } from '../../../src/scheduler/expression.js';

describe('parseScheduleExpression', () => {
  it.each([
    ['rate(1 minute)', 60_000],
    ['rate(5 minutes)', 300_000],
    ['rate(1 hour)', 3_600_000],
    ['rate(12 hours)', 43_200_000],
    ['rate(1 day)', 86_400_000],
    ['rate(7 days)', 604_800_000],
  ])('accepts %s with a period of %i ms', (text, periodMs) => {
    const parsed = parseScheduleExpression(text);

    expect(parsed).toMatchObject({ ok: true, expression: { kind: 'rate', periodMs } });
  });

  it.each([
    ['rate(0 minutes)', 'at least 1'],
    ['rate(5 minute)', "write '5 minutes'"],
    ['rate(1 minutes)', "write '1 minute'"],
    ['rate(5 seconds)', 'minute(s), hour(s) or day(s)'],
    ['rate(-5 minutes)', 'positive integer'],
    ['rate(1.5 hours)', 'positive integer'],
    ['rate(minutes)', 'positive integer'],
    ['rate()', 'positive integer'],
  ])('rejects %s, saying %s', (text, expected) => {
    const parsed = parseScheduleExpression(text);

    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.problem).toContain(expected);
      expect(parsed.problem).toContain(text);
    }
  });

  it.each([
    ['at(2030-01-31T09:30:00)', { year: 2030, month: 1, day: 31, hour: 9, minute: 30, second: 0 }],
    [
      'at(2028-02-29T23:59:59)',
      { year: 2028, month: 2, day: 29, hour: 23, minute: 59, second: 59 },
    ],
  ])('accepts %s', (text, at) => {
    expect(parseScheduleExpression(text)).toMatchObject({
      ok: true,
      expression: { kind: 'at', at },
    });
  });

  it.each([
    'at(2030-01-31 09:30:00)',
    'at(2030-01-31T09:30)',
    'at(2030-02-30T09:30:00)',
    'at(2027-02-29T09:30:00)',
    'at(2030-01-31T24:00:00)',
    'at(2030-01-31T09:60:00)',
  ])('rejects %s', (text) => {
    const parsed = parseScheduleExpression(text);

    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toContain('at(yyyy-mm-ddThh:mm:ss)');
  });

  it.each([
    'cron(0 9 ? * MON-FRI *)',
    'cron(0 10 * * ? *)',
    'cron(15 12 * * ? *)',
    'cron(0 18 ? * MON-FRI *)',
    'cron(0 8 1 * ? *)',
    'cron(0/15 * * * ? *)',
    'cron(5,35 14 * * ? *)',
    'cron(0/5 8-17 ? * MON-FRI *)',
    'cron(0 9 ? * 2#1 *)',
    'cron(0 9 ? * MON#1 *)',
    'cron(0 0 L * ? *)',
    'cron(0 0 LW * ? *)',
    'cron(0 0 15W * ? *)',
    'cron(0 0 ? * 6L *)',
    'cron(0 0 ? * FRIL *)',
    'cron(0 0 ? * L *)',
    'cron(0 0 1 JAN-MAR ? 2030-2032)',
    'cron(0 0 1 */2 ? *)',
    'cron(0 0 ? * SUN,SAT *)',
    'cron(0 0 ? * 1-7 *)',
    'cron(59 23 31 12 ? 2199)',
    'cron(0 12 ? * sun *)',
  ])('accepts %s', (text) => {
    const parsed = parseScheduleExpression(text);

    expect(parsed, parsed.ok ? '' : parsed.problem).toMatchObject({
      ok: true,
      expression: { kind: 'cron' },
    });
  });

  it.each([
    ['cron(0 9 * * MON-FRI *)', "exactly one of day-of-month and day-of-week must be '?'"],
    ['cron(0 9 ? * ? *)', "exactly one of day-of-month and day-of-week must be '?'"],
    ['cron(0 9 * * ?)', 'expected 6 fields'],
    ['cron(0 0 9 * * ? *)', 'expected 6 fields'],
    ['cron(60 9 * * ? *)', 'minutes'],
    ['cron(0 24 * * ? *)', 'hours'],
    ['cron(0 9 32 * ? *)', 'day-of-month'],
    ['cron(0 9 0 * ? *)', 'day-of-month'],
    ['cron(0 9 * 13 ? *)', 'month'],
    ['cron(0 9 ? * 0 *)', 'day-of-week'],
    ['cron(0 9 ? * 8 *)', 'day-of-week'],
    ['cron(0 9 ? * FUN *)', 'day-of-week'],
    ['cron(0 9 * * ? 1969)', 'year'],
    ['cron(0 9 * * ? 2200)', 'year'],
    ['cron(? 9 * * ? *)', "'?' is only allowed"],
    ['cron(0 9 ? * 2#6 *)', 'day-of-week'],
    ['cron(0 9 ? * 9#1 *)', 'day-of-week'],
    ['cron(0 9 32W * ? *)', 'day-of-month'],
    ['cron(0 9 L,15 * ? *)', 'cannot be combined'],
    ['cron(0 9L * * ? *)', 'hours'],
    ['cron(30-10 * * * ? *)', 'runs backwards'],
    ['cron(*/0 * * * ? *)', 'step 0'],
    ['cron(0 9 * * ? *', 'expected at('],
    ['every day', 'expected at('],
  ])('rejects %s, naming %s', (text, expected) => {
    const parsed = parseScheduleExpression(text);

    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toContain(expected);
  });

  it('rejects a value that is not a string', () => {
    const parsed = parseScheduleExpression(42);

    expect(parsed).toEqual({ ok: false, problem: expect.stringContaining('received number') });
  });
});

describe('timezoneProblem', () => {
  it.each(['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Calcutta', 'Etc/UTC'])(
    'accepts %s',
    (zone) => {
      expect(timezoneProblem(zone)).toBeUndefined();
    },
  );

  it.each(['Mars/Olympus_Mons', 'Europe/Berlinn', '', 'berlin', 42, undefined])(
    'rejects %s with the expected form',
    (zone) => {
      expect(timezoneProblem(zone)).toContain("expected an IANA time zone such as 'Europe/Berlin'");
    },
  );
});
