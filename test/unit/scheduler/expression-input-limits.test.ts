import { describe, expect, it } from 'vitest';
import { parseScheduleExpression, timezoneProblem } from '../../../src/scheduler/expression.js';

describe('parseScheduleExpression limits', () => {
  it('rejects an expression longer than 256 characters, as Scheduler does', () => {
    const minutes = Array.from({ length: 60 }, (_, i) => i).join(',');
    const hours = Array.from({ length: 24 }, (_, i) => i).join(',');
    const days = Array.from({ length: 31 }, (_, i) => i + 1).join(',');
    const text = `cron(${minutes} ${hours} ${days} * ? *)`;

    const parsed = parseScheduleExpression(text);

    expect(text.length).toBeGreaterThan(256);
    expect(parsed).toEqual({
      ok: false,
      problem: expect.stringContaining(
        `expected at most 256 characters (Scheduler's limit), received ${text.length}`,
      ),
    });
  });

  it('accepts an expression of exactly 256 characters', () => {
    const text = `rate(${'0'.repeat(256 - 'rate( minutes)'.length - 1)}5 minutes)`;

    const parsed = parseScheduleExpression(text);

    expect(text.length).toBe(256);
    expect(parsed.ok).toBe(true);
  });
});

describe('timezoneProblem for tz database names without a slash', () => {
  it.each(['CET', 'EST5EDT', 'GMT', 'UTC', 'US/Eastern', 'Etc/GMT+5', 'America/Port-au-Prince'])(
    'accepts %s',
    (zone) => {
      expect(timezoneProblem(zone)).toBeUndefined();
    },
  );

  it.each(['utc', 'gmt', 'europe/berlin', '+01:00', 'UTC+1', 'Z', 'Nowhere'])(
    'rejects %s, naming the expected form',
    (zone) => {
      expect(timezoneProblem(zone)).toContain('spelt as in the tz database, received');
    },
  );
});
