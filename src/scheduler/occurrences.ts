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

/** True when the same wall time already happened shortly before (the hour DST repeats). */
function isRepeatedWallTime(instant: number, zone: string): boolean {
  const key = wallKey(instant, zone);
  return [30, 60, 120].some((minutes) => wallKey(instant - minutes * 60_000, zone) === key);
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

function wallKey(instant: number, zone: string): string {
  const t = localTime(instant, zone);
  return `${t.year}-${t.month}-${t.day}T${t.hour}:${t.minute}:${t.second}`;
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
  const offsetAt = (instant: number) => {
    const t = localTime(instant, zone);
    return (
      Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) -
      Math.floor(instant / 1000) * 1000
    );
  };
  // Two passes settle the offset; trying the offset of a few hours earlier first picks
  // the earlier of two repeated wall times.
  const early = asUtc - offsetAt(asUtc - 3 * 3_600_000);
  if (offsetAt(early) === asUtc - early) return early;
  return asUtc - offsetAt(asUtc - offsetAt(asUtc));
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
