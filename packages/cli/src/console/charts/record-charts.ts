/**
 * The charts drawn from the task records, for an executor with no CloudWatch (an emulator):
 * every task whose last change falls in the hour, read through `client.list`, and each one's
 * history replayed into the minute buckets. The history holds what the metrics count: the
 * claims (starts), the outcomes, and the times between them.
 */
import type { HistoryEntry, TaskClient, TaskRecord } from 'tasklane';
import { AuditEvent, TaskStatus } from 'tasklane';
import {
  bucketStarts,
  CHART_STEP_MS,
  CHART_WINDOW_MS,
  type ChartData,
  type ChartSource,
  percentile,
} from './chart-data.js';

/** Options of {@link recordChartSource}. */
export interface RecordChartOptions {
  /** The most records read for one drawing; the charts say when they were cut short. @default 5000 */
  readonly maxTasks?: number;
}

/** The page size of the reads: `client.list`'s largest. */
const PAGE = 1000;

/** Statuses a task waits in before it starts: the queue depth counts them. */
const WAITING: ReadonlySet<string> = new Set([TaskStatus.PENDING, TaskStatus.QUEUED]);

/** The events that end an attempt in failure. */
const FAILED_ENDS: ReadonlySet<string> = new Set([
  AuditEvent.FAILED,
  AuditEvent.RETRY_SCHEDULED,
  AuditEvent.DEAD,
]);

/**
 * A chart source that reads the records: every task changed in the hour (newest first, up
 * to `maxTasks`), plus those still waiting from before it. On a large table this reads a
 * lot (finished tasks are found by a Scan, docs/status-index.md): it is meant for the
 * emulator, where CloudWatch is absent.
 */
export function recordChartSource(
  client: TaskClient,
  options: RecordChartOptions = {},
): ChartSource {
  const maxTasks = options.maxTasks ?? 5000;
  return {
    kind: 'records',
    async lastHour(now) {
      const times = bucketStarts(now);
      const from = times[0] ?? now - CHART_WINDOW_MS;
      const notes: string[] = [];
      const byId = new Map<string, TaskRecord>();
      let cursor: string | undefined;
      do {
        const page = await client.list({
          since: from,
          limit: PAGE,
          ...(cursor === undefined ? {} : { cursor }),
        });
        for (const r of page.items) byId.set(r.id, r);
        cursor = page.cursor;
      } while (cursor !== undefined && byId.size < maxTasks);
      if (cursor !== undefined) {
        notes.push(
          `drawn from the newest ${byId.size} tasks changed in the hour; older ones are left out`,
        );
      }
      // Still waiting since before the hour: they count in the depth all along.
      const waiting = await client.list({
        status: [TaskStatus.PENDING, TaskStatus.QUEUED],
        until: from,
        limit: PAGE,
      });
      for (const r of waiting.items) byId.set(r.id, r);
      return chartFromRecords([...byId.values()], now, notes);
    },
  };
}

/** Replays the records' histories into the minute buckets of the hour before `now`. */
export function chartFromRecords(
  records: readonly TaskRecord[],
  now: number,
  notes: readonly string[] = [],
): ChartData {
  const times = bucketStarts(now);
  const first = times[0] ?? now;
  const n = times.length;
  const slot = (at: number): number | undefined => {
    const i = Math.floor((at - first) / CHART_STEP_MS);
    return i >= 0 && i < n ? i : undefined;
  };
  const counts = () => Array.from({ length: n }, () => 0);
  const started = counts();
  const succeeded = counts();
  const failed = counts();
  const dead = counts();
  const waits = Array.from({ length: n }, (): number[] => []);
  const runs = Array.from({ length: n }, (): number[] => []);
  const depth = counts();
  const add = (series: number[], at: number) => {
    const i = slot(at);
    if (i !== undefined) series[i] = (series[i] ?? 0) + 1;
  };
  const push = (series: number[][], at: number, value: number) => {
    const i = slot(at);
    if (i !== undefined) series[i]?.push(value);
  };
  // The depth is read at the end of each bucket (or now, for the last one).
  const readAt = times.map((t) => Math.min(t + CHART_STEP_MS, now));
  for (const record of records) {
    const history = [...record.history].sort((a, b) => a.at - b.at);
    const claims = new Map<number, number>();
    const failedAttempts = new Set<number>();
    history.forEach((entry, i) => {
      const before = history[i - 1];
      switch (entry.event) {
        case AuditEvent.CLAIMED: {
          add(started, entry.at);
          claims.set(entry.attempt, entry.at);
          const ready = readyAt(record, before);
          if (ready !== undefined) push(waits, entry.at, Math.max(0, entry.at - ready));
          break;
        }
        case AuditEvent.SUCCEEDED:
          add(succeeded, entry.at);
          break;
        default:
          break;
      }
      if (FAILED_ENDS.has(entry.event) && !failedAttempts.has(entry.attempt)) {
        failedAttempts.add(entry.attempt);
        if (claims.has(entry.attempt)) add(failed, entry.at);
      }
      if (entry.event === AuditEvent.DEAD) add(dead, entry.at);
      const claimedAt = claims.get(entry.attempt);
      if (
        claimedAt !== undefined &&
        (entry.event === AuditEvent.SUCCEEDED || FAILED_ENDS.has(entry.event))
      ) {
        push(runs, entry.at, entry.at - claimedAt);
        claims.delete(entry.attempt);
      }
    });
    for (const [from, to] of waitingIntervals(history, now)) {
      readAt.forEach((t, i) => {
        if (t >= from && t < to) depth[i] = (depth[i] ?? 0) + 1;
      });
    }
  }
  return {
    source: 'records',
    times,
    stepMs: CHART_STEP_MS,
    series: {
      started,
      succeeded,
      failed,
      dead,
      waitP50: waits.map((v) => percentile(v, 50)),
      waitP95: waits.map((v) => percentile(v, 95)),
      runP50: runs.map((v) => percentile(v, 50)),
      runP95: runs.map((v) => percentile(v, 95)),
      depth,
    },
    notes,
  };
}

/**
 * When the task became ready for the claim that follows `before`: that entry's time, or its
 * run time when it was SCHEDULED. Undefined after a retry: that wait is the backoff, chosen,
 * not a queue's delay.
 */
function readyAt(record: TaskRecord, before: HistoryEntry | undefined): number | undefined {
  if (before === undefined || before.event === AuditEvent.RETRY_SCHEDULED) return undefined;
  if (before.status === TaskStatus.SCHEDULED) return record.runAt ?? before.at;
  return before.at;
}

/** The intervals `[from, to)` in which the history shows the task waiting to start. */
function waitingIntervals(history: readonly HistoryEntry[], now: number): [number, number][] {
  const out: [number, number][] = [];
  let since: number | undefined;
  for (const entry of history) {
    const waiting = WAITING.has(entry.status);
    if (waiting && since === undefined) since = entry.at;
    if (!waiting && since !== undefined) {
      out.push([since, entry.at]);
      since = undefined;
    }
  }
  if (since !== undefined) out.push([since, now + 1]);
  return out;
}
