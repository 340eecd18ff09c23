import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditEvent } from '../core/constants.js';
import { isTerminal, TaskStatus } from '../core/constants.js';
import { TaskNotFoundError, ValidationError, type ValidationIssue } from '../core/errors.js';
import type { HistoryEntry, TaskRecord } from '../core/record.js';
import {
  type StreamRecord,
  type StreamStart,
  type TableStream,
  taskOfImage,
} from '../store/table-stream.js';
import { taskIdIssue } from './task-ids.js';
import { checkOptionKeys } from './validate.js';

/** One transition of one task, as {@link watchTransitions} yields it. */
export interface TaskTransition {
  readonly taskId: string;
  readonly type: string;
  readonly event: AuditEvent;
  /** Status after the event. */
  readonly status: TaskStatus;
  readonly attempt: number;
  /** Epoch milliseconds. */
  readonly at: number;
  readonly workerId?: string;
  readonly detail?: string;
}

/** Options of `TaskClient.watch`. */
export interface WatchOptions {
  /**
   * Follow one task only, by reading its record every `intervalMs`; the iterator ends once
   * it is terminal (or purged).
   */
  readonly taskId?: string;
  /** Only transitions into these statuses (the status after the event). @default every status */
  readonly statuses?: readonly TaskStatus[];
  /**
   * Yield transitions from this instant on. Without `taskId`, an instant in the past reads
   * the table's stream from its oldest record (it keeps 24 hours). @default now
   */
  readonly since?: Date | number;
  /** Pause between reads when nothing new came. @default 1000 */
  readonly intervalMs?: number;
  /**
   * With `taskId`: how long a task that does not exist yet may take to appear (an enqueue
   * still on its way) before the watch throws `TaskNotFoundError`. @default 10000
   */
  readonly appearWithinMs?: number;
  /**
   * Called once, when the watch has started reading: every write after this is yielded
   * (without `since`, the watch starts at the stream's end, which it finds asynchronously
   * at the first `next()`).
   */
  readonly onReady?: () => void;
  /** Ends the iterator. */
  readonly signal?: AbortSignal;
}

/** What {@link watchTransitions} reads with. */
export interface WatchDeps {
  /** One task's record, strongly consistent; undefined when there is none. */
  readonly get: (id: string) => Promise<TaskRecord | undefined>;
  /** The table's stream, read from `start`. */
  readonly openStream: (start: StreamStart) => Promise<TableStream>;
  readonly clock: () => number;
}

/**
 * Follows transitions as they happen, in the order of each task's writes.
 *
 * Every task: reads the table's DynamoDB stream, whose records hold each write's item before
 * and after it, and yields the history entries a write added (the entries of the new image
 * that the old one lacks). Every transition appends its entry in the same write
 * (docs/adr/0049-watch-reads-the-table-stream.md), so every transition of every task is
 * yielded once, however fast the task runs, and no write is added for it. Heartbeats and
 * progress append nothing and are not yielded; nor are a purge and a retention expiry, which
 * delete the record. A watch that falls more than 24 hours behind throws `WatchGapError`.
 *
 * One task (`taskId`): reads its record every `intervalMs` (one GetItem) and yields the
 * entries of its history not yielded yet.
 */
export async function* watchTransitions(
  deps: WatchDeps,
  options: WatchOptions,
): AsyncGenerator<TaskTransition> {
  checkWatchOptions(options);
  const keep = (t: TaskTransition) =>
    options.statuses === undefined || options.statuses.includes(t.status);
  const source =
    options.taskId === undefined
      ? streamTransitions(deps, options)
      : taskTransitions(deps, options.taskId, options);
  for await (const t of source) if (keep(t)) yield t;
}

async function* streamTransitions(
  deps: WatchDeps,
  options: WatchOptions,
): AsyncGenerator<TaskTransition> {
  const since = options.since === undefined ? undefined : instant(options.since);
  const stream = await deps.openStream(since === undefined ? 'LATEST' : 'TRIM_HORIZON');
  let ready = false;
  while (options.signal?.aborted !== true) {
    const { records, more } = await stream.read();
    if (!ready) {
      // The first read took the shards' iterators: later writes are behind them.
      ready = true;
      options.onReady?.();
    }
    for (const record of records) {
      for (const t of transitionsOf(record)) {
        // Without `since`, the stream's LATEST position is the start: no clock compared.
        if (since === undefined || t.at >= since) yield t;
      }
    }
    if (!more && !(await pause(options))) return;
  }
}

async function* taskTransitions(
  deps: WatchDeps,
  id: string,
  options: WatchOptions,
): AsyncGenerator<TaskTransition> {
  const since = instant(options.since ?? deps.clock());
  const startedAt = deps.clock();
  const appearWithin = options.appearWithinMs ?? 10_000;
  const yielded = new Map<string, number>();
  let seen = false;
  let ready = false;
  while (options.signal?.aborted !== true) {
    const record = await deps.get(id);
    if (!ready) {
      ready = true;
      options.onReady?.();
    }
    if (record === undefined) {
      // Not enqueued yet (wait for it a while), or purged since it was seen (the end).
      if (seen) return;
      if (deps.clock() - startedAt >= appearWithin) throw new TaskNotFoundError(id);
    } else {
      seen = true;
      const counts = new Map<string, number>();
      for (const entry of record.history) {
        const key = entryKey(entry);
        const n = (counts.get(key) ?? 0) + 1;
        counts.set(key, n);
        if (n <= (yielded.get(key) ?? 0)) continue;
        yielded.set(key, n);
        if (entry.at >= since) yield toTransition(record, entry);
      }
      if (isTerminal(record.status)) return;
    }
    if (!(await pause(options))) return;
  }
}

const WATCH_OPTION_KEYS = [
  'taskId',
  'statuses',
  'since',
  'intervalMs',
  'appearWithinMs',
  'onReady',
  'signal',
] as const;

/**
 * @throws ValidationError listing every bad option: an unknown key, an empty task id, an
 *   unknown status, a `since` that is not a time, a negative or unbounded interval or wait.
 */
function checkWatchOptions(options: WatchOptions): void {
  const issues: ValidationIssue[] = [];
  checkOptionKeys(issues, options, WATCH_OPTION_KEYS);
  const { taskId, statuses, since, intervalMs, appearWithinMs } = options;
  const idIssue = taskId === undefined ? undefined : taskIdIssue(taskId, 'taskId');
  if (idIssue !== undefined) issues.push(idIssue);
  for (const [i, status] of (statuses ?? []).entries()) {
    if (!Object.values(TaskStatus).includes(status)) {
      issues.push({
        path: `statuses.${i}`,
        message: `expected one of ${Object.values(TaskStatus).join(', ')}, received ${JSON.stringify(String(status).slice(0, 40))}`,
      });
    }
  }
  if (since !== undefined && !Number.isFinite(instant(since))) {
    issues.push({ path: 'since', message: 'expected a Date or epoch milliseconds' });
  }
  for (const [path, value, max] of [
    ['intervalMs', intervalMs, 3_600_000],
    ['appearWithinMs', appearWithinMs, 86_400_000],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 0 && value <= max)) {
      issues.push({ path, message: `expected an integer from 0 to ${max}, received ${value}` });
    }
  }
  if (issues.length > 0) throw new ValidationError('watch options', issues);
}

/** Waits `intervalMs`; false when the signal ended the watch meanwhile. */
async function pause(options: WatchOptions): Promise<boolean> {
  try {
    await sleep(options.intervalMs ?? 1000, undefined, { signal: options.signal });
    return true;
  } catch {
    return false; // Aborted.
  }
}

/**
 * The transitions one stream record shows: the history entries of its new image that its
 * old image lacks, in history order. A record of an item that is not a task (a debounce
 * pointer, a park or rate-limit item), of a delete, or that cannot be read yields nothing.
 */
export function transitionsOf(record: StreamRecord): TaskTransition[] {
  const after = taskOfImage(record.dynamodb?.NewImage);
  if (after === undefined) return [];
  const before = new Map<string, number>();
  for (const entry of taskOfImage(record.dynamodb?.OldImage)?.history ?? []) {
    const key = entryKey(entry);
    before.set(key, (before.get(key) ?? 0) + 1);
  }
  const added: TaskTransition[] = [];
  for (const entry of after.history) {
    const key = entryKey(entry);
    const left = before.get(key) ?? 0;
    if (left > 0) before.set(key, left - 1);
    else added.push(toTransition(after, entry));
  }
  return added;
}

function instant(value: Date | number): number {
  return value instanceof Date ? value.getTime() : value;
}

function entryKey(entry: HistoryEntry): string {
  return `${entry.at}:${entry.event}:${entry.attempt}:${entry.status}:${entry.detail ?? ''}`;
}

function toTransition(record: TaskRecord, entry: HistoryEntry): TaskTransition {
  return {
    taskId: record.id,
    type: record.type,
    event: entry.event,
    status: entry.status,
    attempt: entry.attempt,
    at: entry.at,
    ...(entry.workerId === undefined ? {} : { workerId: entry.workerId }),
    ...(entry.detail === undefined ? {} : { detail: entry.detail }),
  };
}
