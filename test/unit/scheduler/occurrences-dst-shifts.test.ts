import { describe, expect, it } from 'vitest';
import {
  parseScheduleExpression,
  type ScheduleExpression,
} from '../../../src/scheduler/expression.js';
import { occurrences, zonedToUtc } from '../../../src/scheduler/occurrences.js';

function expr(text: string): ScheduleExpression {
  const parsed = parseScheduleExpression(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.expression;
}

const ms = (iso: string) => Date.parse(iso);
const iso = (list: number[]) => list.map((t) => new Date(t).toISOString());

// Antarctica/Casey went from +11 to +08 at 2023-03-08T16:00Z: the local hours 00:00-03:00 of
// 9 March happened twice, three hours apart.
describe('occurrences across a 3-hour backward shift (Antarctica/Casey, 9 March 2023)', () => {
  const zone = 'Antarctica/Casey';

  it('fires a daily 01:00 once on the repeated day, at its first occurrence', () => {
    const timing = { expression: expr('cron(0 1 * * ? *)'), timezone: zone };

    const fired = occurrences(timing, ms('2023-03-07T20:00:00Z'), ms('2023-03-09T20:00:00Z'));

    expect(iso(fired)).toEqual(['2023-03-08T14:00:00.000Z', '2023-03-09T17:00:00.000Z']);
  });

  it('fires every repeated hour of an hourly cron once: 24 firings that day', () => {
    const timing = { expression: expr('cron(0 * * * ? *)'), timezone: zone };

    const fired = occurrences(timing, ms('2023-03-08T12:59:00Z'), ms('2023-03-09T15:59:00Z'));

    const locals = fired.map((t) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', day: '2-digit' }).format(
        t,
      ),
    );
    expect(new Set(locals).size).toBe(locals.length);
    expect(fired).toHaveLength(24);
  });

  it('reads a repeated wall time as its first occurrence', () => {
    const instant = zonedToUtc(
      { year: 2023, month: 3, day: 9, hour: 1, minute: 30, second: 0 },
      zone,
    );

    expect(new Date(instant).toISOString()).toBe('2023-03-08T14:30:00.000Z');
  });
});
