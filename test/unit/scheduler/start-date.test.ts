import { describe, expect, it } from 'vitest';
import {
  parseScheduleExpression,
  type ScheduleExpression,
} from '../../../src/scheduler/expression.js';
import { START_DATE_GRACE_MS, startDateToSend } from '../../../src/scheduler/start-date.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 30, 19, 7, 30);

function expr(text: string): ScheduleExpression {
  const parsed = parseScheduleExpression(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.expression;
}

describe('startDateToSend', () => {
  it('sends a future StartDate as is', () => {
    const startDate = NOW + HOUR;

    const sent = startDateToSend({ expression: expr('rate(5 minutes)'), startDate, now: NOW });

    expect(sent).toBe(startDate);
  });

  it('sends a StartDate within the grace as is', () => {
    const startDate = NOW - START_DATE_GRACE_MS;

    const sent = startDateToSend({ expression: expr('cron(0 9 * * ? *)'), startDate, now: NOW });

    expect(sent).toBe(startDate);
  });

  it('re-anchors an old rate StartDate on its next firing, keeping the phase', () => {
    const startDate = Date.UTC(2026, 0, 1, 0, 2, 0); // firings at hh:02, hh:07, hh:12, ...

    const sent = startDateToSend({ expression: expr('rate(5 minutes)'), startDate, now: NOW });

    expect(sent).toBe(Date.UTC(2026, 10, 30, 19, 12, 0));
    expect(((sent ?? 0) - startDate) % (5 * MINUTE)).toBe(0);
  });

  it('keeps a firing due exactly now', () => {
    const startDate = NOW - 10 * DAY;

    const sent = startDateToSend({ expression: expr('rate(1 day)'), startDate, now: NOW });

    expect(sent).toBe(NOW);
  });

  it('re-anchors a rate without StartDate from its anchor (last modification)', () => {
    const anchor = NOW - 3 * HOUR - 20 * MINUTE;

    const sent = startDateToSend({ expression: expr('rate(1 hour)'), anchor, now: NOW });

    expect(sent).toBe(anchor + 4 * HOUR);
  });

  it('keeps a recent anchor of a rate without StartDate, so a fresh schedule keeps its phase', () => {
    const anchor = NOW - 30_000;

    const sent = startDateToSend({ expression: expr('rate(1 hour)'), anchor, now: NOW });

    expect(sent).toBe(anchor);
  });

  it('drops an old StartDate of a cron schedule', () => {
    const sent = startDateToSend({
      expression: expr('cron(0 9 * * ? *)'),
      startDate: NOW - 6 * MINUTE,
      now: NOW,
    });

    expect(sent).toBeUndefined();
  });

  it('sends nothing for a cron schedule without StartDate, whatever its anchor', () => {
    const sent = startDateToSend({
      expression: expr('cron(0 9 * * ? *)'),
      anchor: NOW - DAY,
      now: NOW,
    });

    expect(sent).toBeUndefined();
  });

  it('sends nothing when the next firing is not before EndDate', () => {
    const sent = startDateToSend({
      expression: expr('rate(1 hour)'),
      startDate: NOW - 90 * MINUTE,
      endDate: NOW + 20 * MINUTE,
      now: NOW,
    });

    expect(sent).toBeUndefined();
  });
});
