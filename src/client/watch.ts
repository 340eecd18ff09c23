import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditEvent } from '../core/constants.js';
import { isTerminal, TableSchema, type TaskStatus } from '../core/constants.js';
import type { HistoryEntry, TaskRecord } from '../core/record.js';
import { INDEXED_STATUSES, isIndexed } from '../store/status-index-keys.js';
import type { StatusIndex } from '../store/task-store.js';

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
  /** Follow one task only; the iterator ends once it is terminal. */
  readonly taskId?: string;
  /** Only tasks now in these statuses. @default every status */
  readonly statuses?: readonly TaskStatus[];
  /** Yield transitions from this instant on. @default now */
  readonly since?: Date | number;
  /** Pause between polls. @default 2000 */
  readonly intervalMs?: number;
  /** Ends the iterator. */
  readonly signal?: AbortSignal;
}

/**
 * How far back each poll reaches past the previous one, to catch entries the status index
 * (eventually consistent) showed late.
 */
const OVERLAP_MS = 5_000;

/**
 * Follows transitions as they happen, oldest first, by polling. Every transition into a
 * keyed status sets the index's `statusAt` to its own time or later (a lease's end, a
 * retry's due time), so a poll reads each status partition from the previous poll's start
 * on, keeps the entries updated since, reads their records, and yields their history
 * entries not yet yielded. A task it saw that has left the index (finished, cancelled,
 * rolled back) is read once more, so its final transition is yielded too; a task that
 * enters and leaves the index between two polls is not seen (docs/status-index.md).
 * Heartbeats are not history entries and are not yielded; nor is a purge. One poll costs a
 * Query per `status#shard` partition and a read of each changed or followed task.
 */
export async function* watchTransitions(
  index: StatusIndex,
  get: (id: string) => Promise<TaskRecord | undefined>,
  options: WatchOptions,
  clock: () => number,
): AsyncGenerator<TaskTransition> {
  const since =
    options.since instanceof Date ? options.since.getTime() : (options.since ?? clock());
  const interval = options.intervalMs ?? 2000;
  const emitted = new Map<string, Set<string>>();
  const open = new Set<string>();
  let windowStart = since;
  while (options.signal?.aborted !== true) {
    const pollStart = clock();
    const records =
      options.taskId === undefined
        ? await changedSince(index, options.statuses, windowStart, open)
        : await one(get, options.taskId);
    const fresh: TaskTransition[] = [];
    for (const record of records) {
      const seen = emitted.get(record.id) ?? new Set<string>();
      for (const entry of record.history) {
        const key = entryKey(entry);
        if (entry.at < since || entry.at < windowStart || seen.has(key)) continue;
        seen.add(key);
        fresh.push(toTransition(record, entry));
      }
      emitted.set(record.id, seen);
    }
    fresh.sort((a, b) => a.at - b.at);
    yield* fresh;
    if (options.taskId !== undefined && records.every((r) => isTerminal(r.status))) return;
    windowStart = Math.max(since, pollStart - OVERLAP_MS);
    forgetBefore(emitted, windowStart);
    try {
      await sleep(interval, undefined, { signal: options.signal });
    } catch {
      return; // Aborted.
    }
  }
}

/**
 * The tasks changed since `from` (index entries whose `statusAt` and `updatedAt` are at or
 * after it), and the tasks of `open` that left the polled statuses, read from the table.
 * `open` is updated to the tasks now in a polled status. A filter on statuses the index
 * does not key polls every keyed status, since tasks reach those from a keyed one.
 */
async function changedSince(
  index: StatusIndex,
  statuses: readonly TaskStatus[] | undefined,
  from: number,
  open: Set<string>,
): Promise<TaskRecord[]> {
  const polled = statuses === undefined || !statuses.every(isIndexed) ? INDEXED_STATUSES : statuses;
  const pages = await Promise.all(
    index
      .streams(polled)
      .map((stream) =>
        index.read({ stream, from, atLeast: { attribute: 'updatedAt', value: from } }),
      ),
  );
  const changed = pages.flatMap((page) =>
    page.items.map((item) => String(item[TableSchema.PARTITION_KEY])),
  );
  const ids = [...new Set([...changed, ...open])];
  const found = await index.records(ids);
  const records: TaskRecord[] = [];
  for (const id of ids) {
    const record = found.get(id);
    if (record !== undefined && polled.includes(record.status)) open.add(id);
    else open.delete(id);
    if (record !== undefined && (statuses === undefined || statuses.includes(record.status))) {
      records.push(record);
    }
  }
  return records;
}

async function one(
  get: (id: string) => Promise<TaskRecord | undefined>,
  id: string,
): Promise<TaskRecord[]> {
  const record = await get(id);
  return record === undefined ? [] : [record];
}

function entryKey(entry: HistoryEntry): string {
  return `${entry.at}:${entry.event}:${entry.attempt}:${entry.status}`;
}

/** Drops what no later poll can return again: entries older than the window. */
function forgetBefore(emitted: Map<string, Set<string>>, windowStart: number): void {
  for (const [id, keys] of emitted) {
    for (const key of keys) if (Number(key.split(':')[0]) < windowStart) keys.delete(key);
    if (keys.size === 0) emitted.delete(id);
  }
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
