import type { ScheduleExpression } from './expression.js';

/**
 * How old a StartDate may be and still be sent as is. Scheduler refuses a StartDate more
 * than 5 minutes in the past, on CreateSchedule and on UpdateSchedule alike; one minute
 * leaves room for clock skew and a slow call.
 */
export const START_DATE_GRACE_MS = 60_000;

/** What {@link startDateToSend} decides from. Times are epoch ms. */
export interface StartDateInput {
  readonly expression: ScheduleExpression;
  /** The StartDate asked for, or the one the schedule has. */
  readonly startDate?: number | undefined;
  /**
   * Where a rate schedule without StartDate counts from: its last modification (an update
   * without StartDate re-anchors it), else its creation. Unused when startDate is given.
   */
  readonly anchor?: number | undefined;
  readonly endDate?: number | undefined;
  readonly now: number;
}

/**
 * The StartDate to send on CreateSchedule or UpdateSchedule, so that a schedule declared
 * long ago can still be re-declared, paused and resumed without moving its firings:
 *
 * - a recent or future StartDate is sent as is;
 * - a `rate()` whose anchor (StartDate, else `anchor`) is older than the grace is
 *   re-anchored on its next firing at or after `now`: same period, same phase. Dropping
 *   StartDate instead would make the rate count from the update;
 * - a `cron()` or `at()` with an old StartDate gets none: a past start restricts nothing
 *   from now on, and cron firings follow the clock, not the StartDate;
 * - nothing is sent when the result would not be before EndDate (no firing is left, and
 *   Scheduler wants StartDate before EndDate).
 */
export function startDateToSend(input: StartDateInput): number | undefined {
  const { expression, now } = input;
  const fresh = (t: number) => t >= now - START_DATE_GRACE_MS;
  let start: number | undefined;
  if (expression.kind === 'rate') {
    const anchor = input.startDate ?? input.anchor;
    if (anchor !== undefined) {
      const whole = Math.ceil(anchor / 1000) * 1000;
      if (fresh(whole)) start = input.startDate === undefined ? whole : input.startDate;
      else start = whole + Math.ceil((now - whole) / expression.periodMs) * expression.periodMs;
    }
  } else if (input.startDate !== undefined && fresh(input.startDate)) {
    start = input.startDate;
  }
  if (start !== undefined && input.endDate !== undefined && start >= input.endDate) {
    return undefined;
  }
  return start;
}
