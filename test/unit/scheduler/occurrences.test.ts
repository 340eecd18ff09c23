import { describe, expect, it } from 'vitest';
import {
  parseScheduleExpression,
  type ScheduleExpression,
} from '../../../src/scheduler/expression.js';
import {
  atExpression,
  formatScheduledTime,
  localTime,
  occurrences,
  zonedToUtc,
} from '../../../src/scheduler/occurrences.js';

function expr(text: string): ScheduleExpression {
  const parsed = parseScheduleExpression(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.expression;
}

const ms = (iso: string) => Date.parse(iso);
const iso = (list: number[]) => list.map((t) => new Date(t).toISOString());

describe('occurrences of a cron schedule in Europe/Berlin across DST', () => {
  it('fires a daily 09:00 at 08:00 UTC in winter and 07:00 UTC in summer (spring forward, 29 March 2026)', () => {
    const timing = { expression: expr('cron(0 9 * * ? *)'), timezone: 'Europe/Berlin' };

    const fired = occurrences(timing, ms('2026-03-27T00:00:00Z'), ms('2026-03-31T00:00:00Z'));

    expect(iso(fired)).toEqual([
      '2026-03-27T08:00:00.000Z',
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ]);
  });

  it('fires a daily 09:00 at 07:00 UTC in summer and 08:00 UTC in winter (fall back, 25 October 2026)', () => {
    const timing = { expression: expr('cron(0 9 * * ? *)'), timezone: 'Europe/Berlin' };

    const fired = occurrences(timing, ms('2026-10-23T00:00:00Z'), ms('2026-10-27T00:00:00Z'));

    expect(iso(fired)).toEqual([
      '2026-10-23T07:00:00.000Z',
      '2026-10-24T07:00:00.000Z',
      '2026-10-25T08:00:00.000Z',
      '2026-10-26T08:00:00.000Z',
    ]);
  });

  it('skips 02:30 on the day the clocks jump from 02:00 to 03:00', () => {
    const timing = { expression: expr('cron(30 2 * * ? *)'), timezone: 'Europe/Berlin' };

    const fired = occurrences(timing, ms('2026-03-27T00:00:00Z'), ms('2026-03-31T00:00:00Z'));

    expect(iso(fired)).toEqual([
      '2026-03-27T01:30:00.000Z',
      '2026-03-28T01:30:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
  });

  it('fires 02:30 once, at its first occurrence, on the day 02:00-03:00 repeats', () => {
    const timing = { expression: expr('cron(30 2 * * ? *)'), timezone: 'Europe/Berlin' };

    const fired = occurrences(timing, ms('2026-10-24T00:00:00Z'), ms('2026-10-27T00:00:00Z'));

    expect(iso(fired)).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('fires hourly 23 times on the short day and 24 times on the long day', () => {
    const timing = { expression: expr('cron(0 * * * ? *)'), timezone: 'Europe/Berlin' };

    const spring = occurrences(timing, ms('2026-03-28T22:59:59Z'), ms('2026-03-29T21:59:59Z'));
    const fall = occurrences(timing, ms('2026-10-24T21:59:59Z'), ms('2026-10-25T22:59:59Z'));

    expect(spring).toHaveLength(23);
    expect(fall).toHaveLength(24);
    expect(new Set(fall.map((t) => localTime(t, 'Europe/Berlin').hour)).size).toBe(24);
  });

  it('keeps weekdays in local time: MON-FRI 08:00 Berlin over the spring change', () => {
    const timing = { expression: expr('cron(0 8 ? * MON-FRI *)'), timezone: 'Europe/Berlin' };

    const fired = occurrences(timing, ms('2026-03-26T00:00:00Z'), ms('2026-03-31T00:00:00Z'));

    expect(iso(fired)).toEqual([
      '2026-03-26T07:00:00.000Z',
      '2026-03-27T07:00:00.000Z',
      '2026-03-30T06:00:00.000Z',
    ]);
  });
});

describe('occurrences of cron special forms (UTC)', () => {
  const from = ms('2026-01-01T00:00:00Z');
  const to = ms('2026-06-30T23:59:59Z');
  it.each([
    ['cron(0 0 L * ? *)', ['2026-01-31', '2026-02-28', '2026-03-31']],
    ['cron(0 0 LW * ? *)', ['2026-01-30', '2026-02-27', '2026-03-31']],
    ['cron(0 0 15W * ? *)', ['2026-01-15', '2026-02-16', '2026-03-16']],
    ['cron(0 0 ? * 3#2 *)', ['2026-01-13', '2026-02-10', '2026-03-10']],
    ['cron(0 0 ? * TUE#2 *)', ['2026-01-13', '2026-02-10', '2026-03-10']],
    ['cron(0 0 ? * 6L *)', ['2026-01-30', '2026-02-27', '2026-03-27']],
    ['cron(0 0 ? * L *)', ['2026-01-03', '2026-01-10', '2026-01-17']],
    ['cron(0 0 ? * 1 *)', ['2026-01-04', '2026-01-11', '2026-01-18']],
    ['cron(0 0 1 */5 ? *)', ['2026-01-01', '2026-06-01']],
  ])('%s fires on %j first', (text, days) => {
    const fired = occurrences({ expression: expr(text) }, from - 1, to);

    expect(
      iso(fired)
        .slice(0, days.length)
        .map((d) => d.slice(0, 10)),
    ).toEqual(days);
  });

  it('honours numeric-start steps: 5/20 means minutes 5, 25 and 45', () => {
    const fired = occurrences(
      { expression: expr('cron(5/20 0 * * ? *)') },
      ms('2026-01-01T00:00:00Z'),
      ms('2026-01-01T01:00:00Z'),
    );

    expect(iso(fired)).toEqual([
      '2026-01-01T00:05:00.000Z',
      '2026-01-01T00:25:00.000Z',
      '2026-01-01T00:45:00.000Z',
    ]);
  });

  it('stops after the year field', () => {
    const fired = occurrences(
      { expression: expr('cron(0 0 1 1 ? 2027-2028)') },
      from,
      ms('2035-01-01T00:00:00Z'),
    );

    expect(iso(fired)).toEqual(['2027-01-01T00:00:00.000Z', '2028-01-01T00:00:00.000Z']);
  });
});

describe('occurrences of a rate schedule', () => {
  const start = ms('2026-05-01T12:00:00Z');

  it('fires every period from StartDate: 12 times in the hour [start, start + 1 h)', () => {
    const timing = { expression: expr('rate(5 minutes)'), startDate: start };

    const fired = occurrences(timing, start - 1, start + 3_600_000 - 1);

    expect(fired).toHaveLength(12);
    expect(fired[0]).toBe(start);
    expect(fired[11]).toBe(start + 55 * 60_000);
  });

  it('starts at creation when there is no StartDate (rounded up to the second)', () => {
    const timing = { expression: expr('rate(1 hour)'), createdAt: start - 400 };

    expect(occurrences(timing, start - 1000, start + 7_200_000)).toEqual([
      start,
      start + 3_600_000,
      start + 7_200_000,
    ]);
  });

  it('counts days as 24 hours across DST, whatever the time zone', () => {
    const timing = {
      expression: expr('rate(1 day)'),
      timezone: 'Europe/Berlin',
      startDate: ms('2026-03-28T08:00:00Z'),
    };

    const fired = occurrences(timing, 0, ms('2026-03-30T09:00:00Z'));

    expect(iso(fired)).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T08:00:00.000Z',
      '2026-03-30T08:00:00.000Z',
    ]);
  });

  it('respects the window (after, until] so ticks never deliver a firing twice', () => {
    const timing = { expression: expr('rate(5 minutes)'), startDate: start };
    const all: number[] = [];

    for (let t = start - 60_000; t < start + 3_600_000; t += 60_000) {
      all.push(...occurrences(timing, t, t + 60_000));
    }

    expect(new Set(all).size).toBe(all.length);
    expect(all.filter((t) => t < start + 3_600_000)).toHaveLength(12);
  });

  it('fires nothing before StartDate and nothing from EndDate on', () => {
    const timing = {
      expression: expr('rate(10 minutes)'),
      startDate: start,
      endDate: start + 30 * 60_000,
    };

    const fired = occurrences(timing, 0, start + 3_600_000);

    expect(fired).toEqual([start, start + 600_000, start + 1_200_000]);
  });

  it('gives up at the limit instead of running away', () => {
    const timing = { expression: expr('rate(1 minute)'), startDate: 0 };

    expect(occurrences(timing, 0, ms('2030-01-01T00:00:00Z'), 50)).toHaveLength(50);
  });
});

describe('occurrences of a one-time schedule', () => {
  it('fires at its wall time in the zone, once, and ignores StartDate', () => {
    const timing = {
      expression: expr('at(2026-07-01T09:00:00)'),
      timezone: 'Europe/Berlin',
      startDate: ms('2027-01-01T00:00:00Z'),
    };

    expect(iso(occurrences(timing, 0, ms('2030-01-01T00:00:00Z')))).toEqual([
      '2026-07-01T07:00:00.000Z',
    ]);
    expect(occurrences(timing, ms('2026-07-01T07:00:00Z'), ms('2030-01-01T00:00:00Z'))).toEqual([]);
  });
});

describe('time formats', () => {
  it('writes the scheduled time as the service does, without milliseconds', () => {
    expect(formatScheduledTime(ms('2026-03-22T18:59:43.999Z'))).toBe('2026-03-22T18:59:43Z');
  });

  it('rounds an at() expression up to the next whole second, never earlier', () => {
    expect(atExpression(ms('2026-03-22T18:59:43.001Z'))).toBe('at(2026-03-22T18:59:44)');
    expect(atExpression(ms('2026-03-22T18:59:43.000Z'))).toBe('at(2026-03-22T18:59:43)');
  });

  it.each([
    ['UTC', '2026-10-25T02:30:00.000Z'],
    ['Europe/Berlin', '2026-10-25T00:30:00.000Z'],
    ['America/New_York', '2026-10-25T06:30:00.000Z'],
  ])('maps the wall time 2026-10-25 02:30 in %s to %s', (zone, expected) => {
    const local = { year: 2026, month: 10, day: 25, hour: 2, minute: 30, second: 0 };

    expect(new Date(zonedToUtc(local, zone)).toISOString()).toBe(expected);
  });
});
