/**
 * Per-key order, judged from the handlers' own start and end times (the {@link CallLog}).
 *
 * The guarantee: tasks that share an ordering key run one after another, in enqueue order.
 * For two consecutive tasks `prev` and `next` of a key, `prev` is *finished* when its final
 * run ended: the run of the attempt that wrote its terminal status (the handler's own end
 * time; the terminal write's time when that run reported no end, e.g. a task declared DEAD
 * by the sweeper). Then:
 *
 * - **violation**: any run of `next` (whatever its attempt) starts at or before the moment
 *   `prev` finished, or while `prev` is not terminal at all. This is what a user of ordering
 *   keys must never see: later work starting before earlier work is done.
 * - **not a violation, counted apart**: a *stale* run of `prev` (an attempt whose lease was
 *   lost, e.g. a frozen worker that resumed after its task was taken over and finished) that
 *   is still running when `next` starts. Its lease was lost, so the system no longer counts
 *   it as running; DESIGN's at-least-once rule lets such a run repeat its effect, and the
 *   duplicates criterion ties each one to a lost lease in the task's history.
 */
import { AuditEvent } from '../../../src/core/constants.js';
import type { TaskRecord } from '../../../src/core/record.js';
import type { CallLog, RunEnd, RunEntry } from './ledger.js';
import { readAllRecords } from './records.js';
import type { Scenario } from './scenario.js';

/** One keyed task, in the order it was enqueued. */
export interface KeyedTask {
  readonly id: string;
  readonly key: string;
}

/** One order violation: `next` started before `prev` (earlier in its key) had finished. */
export interface OrderViolation {
  readonly key: string;
  readonly prev: string;
  readonly next: string;
  /** How long before `prev` finished `next` started, in ms (Infinity: prev never finished). */
  readonly earlyByMs: number;
}

export interface OrderReport {
  readonly keys: number;
  /** Consecutive pairs judged. */
  readonly pairs: number;
  readonly violations: readonly OrderViolation[];
  /** Runs of a later task that overlapped a stale run (lost lease) of the task before it. */
  readonly staleOverlaps: number;
}

const FINAL_EVENTS: ReadonlySet<string> = new Set([
  AuditEvent.SUCCEEDED,
  AuditEvent.DEAD,
  AuditEvent.CANCELLED,
]);

const runKey = (r: Omit<RunEntry, 'at'>) => `${r.taskId}#${r.attempt}#${r.workerId}`;

/** When a task finished (its final run ended), or undefined when it never did. */
function finishedAt(record: TaskRecord | undefined, ends: ReadonlyMap<string, RunEnd>) {
  const final = [...(record?.history ?? [])].reverse().find((h) => FINAL_EVENTS.has(h.event));
  if (record === undefined || final === undefined) return undefined;
  const end =
    final.workerId === undefined
      ? undefined
      : ends.get(runKey({ taskId: record.id, attempt: final.attempt, workerId: final.workerId }));
  return { at: end?.at ?? final.at, attempt: final.attempt, workerId: final.workerId };
}

/** Judges every key's order; `tasks` must list each key's tasks in enqueue order. */
export function checkKeyOrder(
  tasks: readonly KeyedTask[],
  records: ReadonlyMap<string, TaskRecord>,
  log: CallLog,
): OrderReport {
  const ends = new Map<string, RunEnd>();
  for (const end of log.ends) ends.set(runKey(end), end);
  const starts = new Map<string, RunEntry[]>();
  for (const call of log.entries) {
    const list = starts.get(call.taskId) ?? [];
    list.push(call);
    starts.set(call.taskId, list);
  }
  const byKey = new Map<string, string[]>();
  for (const t of tasks) byKey.set(t.key, [...(byKey.get(t.key) ?? []), t.id]);

  const violations: OrderViolation[] = [];
  let pairs = 0;
  let staleOverlaps = 0;
  for (const [key, ids] of byKey) {
    for (let i = 1; i < ids.length; i++) {
      const prev = ids[i - 1] as string;
      const next = ids[i] as string;
      pairs += 1;
      const nextRuns = starts.get(next) ?? [];
      if (nextRuns.length === 0) continue;
      const firstStart = Math.min(...nextRuns.map((r) => r.at));
      const done = finishedAt(records.get(prev), ends);
      if (done === undefined || firstStart <= done.at) {
        violations.push({
          key,
          prev,
          next,
          earlyByMs: done === undefined ? Number.POSITIVE_INFINITY : done.at - firstStart,
        });
        continue;
      }
      // Stale runs of prev (any run but its final one) that ended after next started. A run
      // killed with its process reports no end, and ran no further.
      for (const run of starts.get(prev) ?? []) {
        if (run.attempt === done.attempt && run.workerId === done.workerId) continue;
        const end = ends.get(runKey(run))?.at;
        if (end !== undefined && nextRuns.some((n) => n.at >= run.at && n.at < end)) {
          staleOverlaps += 1;
        }
      }
    }
  }
  return { keys: byKey.size, pairs, violations, staleOverlaps };
}

/** A line per violation, for the console (the first `limit`). */
export function describeViolations(report: OrderReport, limit = 10): string {
  return report.violations
    .slice(0, limit)
    .map((v) =>
      Number.isFinite(v.earlyByMs)
        ? `key ${v.key}: ${v.next} started ${v.earlyByMs} ms before ${v.prev} finished`
        : `key ${v.key}: ${v.next} ran though ${v.prev} never finished`,
    )
    .join('\n');
}

/**
 * Records the order criterion of a keyed scenario (0 violations) and its figures. Reads
 * every record of the scenario's table.
 */
export async function checkOrder(s: Scenario, tasks: readonly KeyedTask[]): Promise<OrderReport> {
  const report = checkKeyOrder(tasks, await readAllRecords(s.executor), s.calls);
  if (report.violations.length > 0) console.log(describeViolations(report));
  s.note('ordering keys', report.keys);
  s.note(
    'stale runs of an earlier task overlapping a later one (lost leases)',
    report.staleOverlaps,
  );
  s.check(
    'key-order',
    'per-key order: no task starts before the previous task of its key finished (0 violations)',
    report.violations.length === 0,
    `${report.violations.length} violation(s) in ${report.pairs} consecutive pairs`,
  );
  return report;
}
