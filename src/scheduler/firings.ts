/**
 * A recurring schedule's firings around now: the next ones it will make and the recent ones
 * it was due to make, each with the id its task has (`<schedule>@<scheduled time>`), so an
 * operator can go from a schedule to the tasks it created by key, without a list or a Scan.
 */
import { parseScheduleExpression } from './expression.js';
import { firingTaskId } from './names.js';
import { formatScheduledTime, occurrences, type ScheduleTiming } from './occurrences.js';

/** One firing of a recurring schedule. */
export interface ScheduleFiring {
  /** The scheduled time (`<aws.scheduler.scheduled-time>`). */
  readonly at: Date;
  /** The id of the task this firing creates (or created). */
  readonly taskId: string;
}

/** What {@link scheduleFirings} reads of a schedule. */
export interface FiringSchedule {
  readonly name: string;
  readonly expression: string;
  readonly timezone: string;
  readonly startDate: Date | undefined;
  readonly endDate: Date | undefined;
  readonly createdAt: Date | undefined;
}

/** How far back the recent firings are looked for: a yearly cron still shows its last one. */
const LOOK_BACK_MS = [86_400_000, 32 * 86_400_000, 367 * 86_400_000];
/** How far ahead the next firings are looked for. */
const LOOK_AHEAD_MS = 367 * 86_400_000;

/**
 * The `next` firings after `now` and the `recent` ones at or before it (newest first), from
 * the schedule's expression, time zone, window and creation time, as EventBridge Scheduler
 * evaluates them. A recent firing is one the schedule was due to make: one missed while the
 * schedule was paused, or not delivered, has no task. An expression this cannot read gives
 * none.
 */
export function scheduleFirings(
  schedule: FiringSchedule,
  now: number,
  counts: { readonly next: number; readonly recent: number } = { next: 3, recent: 5 },
): { readonly next: ScheduleFiring[]; readonly recent: ScheduleFiring[] } {
  const parsed = parseScheduleExpression(schedule.expression);
  if (!parsed.ok) return { next: [], recent: [] };
  const timing: ScheduleTiming = {
    expression: parsed.expression,
    timezone: schedule.timezone,
    startDate: schedule.startDate?.getTime(),
    endDate: schedule.endDate?.getTime(),
    createdAt: schedule.createdAt?.getTime(),
  };
  const firing = (at: number): ScheduleFiring => ({
    at: new Date(at),
    taskId: firingTaskId(schedule.name, formatScheduledTime(at)),
  });
  const next = occurrences(timing, now, now + LOOK_AHEAD_MS, counts.next).map(firing);
  // A schedule fires no earlier than its creation (nor its StartDate, which timing holds).
  const since = schedule.createdAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  let recent: number[] = [];
  for (const back of LOOK_BACK_MS) {
    const from = Math.max(now - back, since - 1);
    recent = occurrences(timing, from, now).slice(-counts.recent);
    if (recent.length >= counts.recent || from > now - back) break;
  }
  return { next, recent: recent.reverse().map(firing) };
}
