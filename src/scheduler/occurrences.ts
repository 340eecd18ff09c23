import { Cron } from 'croner';
import { cronerOptions, type LocalDateTime, type ScheduleExpression } from './expression.js';

/** When a schedule may fire: its expression, time zone and active window. Times are epoch ms. */
export interface ScheduleTiming {
  readonly expression: ScheduleExpression;
  /** IANA zone the expression is evaluated in. @default 'UTC' */
  readonly timezone?: string | undefined;
  /** No firing before this instant (recurring schedules only; at() ignores it, as AWS does). */
  readonly startDate?: number | undefined;
  /** No firing at or after this instant (recurring schedules only). */
  readonly endDate?: number | undefined;
  /** When the schedule was created: a rate schedule without StartDate starts then. */
  readonly createdAt?: number | undefined;
}

/** Stops a runaway computation, e.g. a per-minute rate asked about a year. */
const DEFAULT_LIMIT = 10_000;

/**
 * The instants at which a schedule fires in `(after, until]`, in order, whole seconds.
 *
 * - `at()`: its local time in the zone, once.
 * - `rate()`: every period from StartDate (or creation, when there is none). A day is
 *   24 hours, whatever DST does to the wall clock, as the service documents.
 * - `cron()`: evaluated on the zone's wall clock. A wall time that a DST change skips does
 *   not fire; one that it repeats fires once, at its first occurrence (the service's rule).
 */
export function occurrences(
  timing: ScheduleTiming,
  after: number,
  until: number,
  limit = DEFAULT_LIMIT,
): number[] {
  const { expression } = timing;
  const zone = timing.timezone ?? 'UTC';
  if (expression.kind === 'at') {
    const at = zonedToUtc(expression.at, zone);
    return at > after && at <= until ? [at] : [];
  }
  const from = Math.max(after, (timing.startDate ?? Number.NEGATIVE_INFINITY) - 1);
  const to = Math.min(until, (timing.endDate ?? Number.POSITIVE_INFINITY) - 1);
  const out: number[] = [];
  if (to <= from) return out;
  if (expression.kind === 'rate') {
    const anchor = timing.startDate ?? timing.createdAt;
    if (anchor === undefined) return out;
    const start = Math.ceil(anchor / 1000) * 1000;
    let k = from < start ? 0 : Math.floor((from - start) / expression.periodMs) + 1;
    for (let t = start + k * expression.periodMs; t <= to && out.length < limit; k++) {
      out.push(t);
      t = start + (k + 1) * expression.periodMs;
    }
    return out;
  }
  const cron = new Cron(expression.cron.cronerPattern, cronerOptions(zone));
  let cursor = from;
  while (out.length < limit) {
    const next = cron.nextRun(new Date(cursor))?.getTime();
    if (next === undefined || next > to) break;
    cursor = next;
    const local = localTime(next, zone);
    // croner moves a skipped wall time to the next valid instant; AWS skips it.
    if (!expression.cron.minutes.has(local.minute) || !expression.cron.hours.has(local.hour)) {
      continue;
    }
    if (isRepeatedWallTime(next, zone)) continue;
    out.push(next);
  }
  return out;
}

/** Further back than any backward shift of a zone's offset (date-line moves are 24 hours). */
const MAX_SHIFT_MS = 26 * 3_600_000;

/**
 * True when the same wall time already happened before (the hours a backward shift of the
 * offset repeats). The earlier instant is `instant` minus the shift: the shift is taken from
 * the zone's real offsets over the day before, so a 3-hour shift (Antarctica/Casey) counts
 * as much as the usual hour.
 */
function isRepeatedWallTime(instant: number, zone: string): boolean {
  const offset = offsetAt(instant, zone);
  // No change over the day before (zones do not shift and shift back within a day).
  if (offsetAt(instant - MAX_SHIFT_MS, zone) === offset) return false;
  for (let back = 30 * 60_000; back <= MAX_SHIFT_MS; back += 30 * 60_000) {
    const earlier = offsetAt(instant - back, zone);
    const shift = earlier - offset;
    if (shift > 0 && offsetAt(instant - shift, zone) === earlier) return true;
  }
  return false;
}

/** The zone's offset from UTC at an instant, in ms (wall clock minus UTC). */
function offsetAt(instant: number, zone: string): number {
  const t = localTime(instant, zone);
  return (
    Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) -
    Math.floor(instant / 1000) * 1000
  );
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock reading of an instant in a zone. */
export function localTime(instant: number, zone: string): LocalDateTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(new Date(instant))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** The instant a wall-clock time names in a zone (the earlier one when DST repeats it). */
export function zonedToUtc(local: LocalDateTime, zone: string): number {
  const asUtc = Date.UTC(
    local.year,
    local.month - 1,
    local.day,
    local.hour,
    local.minute,
    local.second,
  );
  // The instants whose offset puts them at this wall time, found among the offsets in force
  // around it; the earliest when a backward shift repeats it.
  const found = [asUtc - MAX_SHIFT_MS, asUtc, asUtc + MAX_SHIFT_MS]
    .map((probe) => asUtc - offsetAt(probe, zone))
    .filter((instant) => offsetAt(instant, zone) === asUtc - instant);
  if (found.length > 0) return Math.min(...found);
  // A wall time that a forward shift skips: read with the offset of just before.
  return asUtc - offsetAt(asUtc - offsetAt(asUtc, zone), zone);
}

/** `<aws.scheduler.scheduled-time>` as the service writes it: ISO 8601, whole seconds, `Z`. */
export function formatScheduledTime(instant: number): string {
  return new Date(Math.floor(instant / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** A one-time expression in UTC for an instant, rounded up to the whole second. */
export function atExpression(instant: number): string {
  const seconds = Math.ceil(instant / 1000) * 1000;
  return `at(${new Date(seconds).toISOString().slice(0, 19)})`;
}
