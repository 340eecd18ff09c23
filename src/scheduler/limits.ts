/**
 * The latest instant Tasklane schedules anything for: the end of 2199, the last year
 * Scheduler's cron year field accepts. It keeps `at()` expressions within four-digit years
 * (JavaScript dates reach year 275760, which Scheduler cannot read).
 */
export const LATEST_INSTANT = Date.UTC(2200, 0, 1) - 1000;

/**
 * Checks an instant (epoch ms) meant for a schedule: a finite time no later than
 * {@link LATEST_INSTANT}.
 *
 * @returns what is wrong, or undefined when it is usable.
 */
export function instantProblem(ms: number): string | undefined {
  if (Number.isFinite(ms) && ms <= LATEST_INSTANT) return undefined;
  return `expected a time no later than ${new Date(LATEST_INSTANT).toISOString()}, received ${
    Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms)
  }`;
}
