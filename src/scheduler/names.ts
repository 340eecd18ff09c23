import { createHash } from 'node:crypto';
import { SCHEDULE_NAME_PATTERN } from '../core/message.js';

/**
 * Schedules of delayed tasks live in a group of their own (see
 * {@link delayedScheduleGroupName}). Their names start with `task.` (the task id as is) or
 * `task_` (a hash of it), and a recurring schedule's name may not, so that the two kinds
 * stay apart by name too (schedules of executors from before the split share one group).
 */
const DELAYED_PREFIX = 'task.';
const HASHED_PREFIX = 'task_';
const RESERVED = /^task[._]/;

/**
 * The group of an executor's delayed tasks' one-time schedules: `<group>.at`. Recurring
 * schedules keep the main group, so listing them never pages through the (possibly
 * millions of) pending delayed tasks. Executor names allow no `.`, so this is never
 * another executor's main group, and a 60-character name still fits Scheduler's 64.
 */
export function delayedScheduleGroupName(scheduleGroupName: string): string {
  return `${scheduleGroupName}.at`;
}

/**
 * The name of a delayed task's one-time schedule. The task id is kept when it fits
 * Scheduler's rules, so an operator can read it in the console; a long or odd id (ids
 * allow any printable ASCII up to 128 characters) is replaced by its SHA-256, which is
 * stable, so a retry or the sweeper always finds the same schedule.
 */
export function delayedScheduleName(taskId: string): string {
  const plain = `${DELAYED_PREFIX}${taskId}`;
  if (SCHEDULE_NAME_PATTERN.test(plain)) return plain;
  const hash = createHash('sha256').update(taskId).digest('hex');
  return `${HASHED_PREFIX}${hash.slice(0, 64 - HASHED_PREFIX.length)}`;
}

/** True for the name of a delayed task's schedule (as opposed to a recurring one). */
export function isDelayedScheduleName(name: string): boolean {
  return RESERVED.test(name);
}

/**
 * Checks the name of a recurring schedule.
 *
 * @returns what is wrong with it, or undefined when it is valid.
 */
export function scheduleNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !SCHEDULE_NAME_PATTERN.test(name)) {
    const received =
      typeof name === 'string'
        ? `${JSON.stringify(name.slice(0, 80))}${name.length > 80 ? '…' : ''} (${name.length} characters)`
        : typeof name;
    return `expected 1-64 characters of A-Z a-z 0-9 - _ . (EventBridge Scheduler's rule), received ${received}`;
  }
  if (RESERVED.test(name)) {
    return `names starting with 'task.' or 'task_' are reserved for delayed tasks, received ${JSON.stringify(name)}`;
  }
  return undefined;
}

/**
 * The id of the task a recurring schedule's firing becomes: the same for every delivery of
 * one firing, so a duplicate delivery finds the task instead of creating a second one.
 */
export function firingTaskId(schedule: string, scheduledTime: string): string {
  return `${schedule}@${scheduledTime}`;
}
