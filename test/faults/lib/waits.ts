/**
 * Judging durable waits (scenario (v)): what each wait returned, by the ledger's `after`
 * effects, and how late each task went on after its wait's deadline (docs/durable-tasks.md,
 * docs/adr/0048-durable-sleep-signals-pause.md).
 */
import { AuditEvent } from '../../../src/core/constants.js';
import type { TaskRecord } from '../../../src/core/record.js';
import { afterWaitEffectId, beforeWaitEffectId } from './fault-tasks.js';
import type { LedgerEntry } from './ledger.js';
import type { ProducerSupervisor, ProducerTask } from './producer.js';

/** One task of the scenario's plan, with what it waits for. */
export interface PlannedWait extends ProducerTask {
  /** `sleep`; a signal sent `before` or `after` the wait; or `never` sent (a timeout). */
  readonly kind: 'sleep' | 'before' | 'after' | 'never';
}

/** What one task's wait came to. */
export interface WaitOutcome {
  readonly id: string;
  readonly kind: PlannedWait['kind'];
  /** What the `after` effects say the wait returned (one per effect; equal on a replay). */
  readonly details: readonly string[];
  /** When the wait could first have ended: its timer, its signal, or its resume. */
  readonly deadline: number | undefined;
  /** When the task went on: its first `after` effect. */
  readonly continued: number | undefined;
  /** `continued - deadline`, in ms. */
  readonly lateMs: number | undefined;
  /** The task went on before its timer ended, or before its signal was sent. */
  readonly early: boolean;
  /** Claims after the deadline beyond the first: runs taken over after a worker was killed. */
  readonly takeovers: number;
  /**
   * The producer's send of what ended the wait (its signal), or of its resume, was tried more
   * than once: a kill cut it short, perhaps between its write and its wake.
   */
  readonly wakeRetried: boolean;
}

const firstAt = (entries: readonly LedgerEntry[]): number | undefined =>
  entries.length === 0 ? undefined : Math.min(...entries.map((e) => e.at));

/** The timer's end its first suspension recorded (`until <ISO>` in the history's detail). */
function suspendedUntil(record: TaskRecord | undefined): number | undefined {
  const suspended = record?.history.find((h) => h.event === AuditEvent.SUSPENDED);
  const iso = suspended?.detail?.match(/until (\S+Z)/)?.[1];
  return iso === undefined ? undefined : Date.parse(iso);
}

/**
 * Each task's wait: what it returned, its deadline, and how late the task went on. The
 * deadline is the latest of the timer's end (a sleep or a timeout), the signal's first send
 * (its first try: a send cut short by a kill may have stored it), and the first try of the
 * resume of a task paused on the way. Taking the first tries makes the lateness an upper
 * bound.
 */
export function judgeWaits(
  planned: readonly PlannedWait[],
  records: ReadonlyMap<string, TaskRecord | undefined>,
  ledger: readonly LedgerEntry[],
  producer: ProducerSupervisor,
): WaitOutcome[] {
  return planned.map((p) => {
    const afters = ledger.filter((e) => e.taskId === afterWaitEffectId(p.id));
    const before = firstAt(ledger.filter((e) => e.taskId === beforeWaitEffectId(p.id)));
    const continued = firstAt(afters);
    const record = records.get(p.id);
    const timer =
      suspendedUntil(record) ??
      (before === undefined ? undefined : before + (p.payload.waitMs ?? 0));
    const signalled = producer.firstTry(p.id, 'signal');
    const pause = producer.done.get(`${p.id}:pause`);
    const resumed =
      pause !== undefined && pause.outcome?.startsWith('rejected') !== true
        ? producer.firstTry(p.id, 'resume')
        : undefined;
    const base =
      p.kind === 'before' || p.kind === 'after'
        ? Math.max(signalled ?? Number.POSITIVE_INFINITY, before ?? 0)
        : timer;
    const deadline =
      base === undefined || !Number.isFinite(base) ? undefined : Math.max(base, resumed ?? 0);
    const early =
      continued !== undefined && base !== undefined && continued < base - TIMER_TOLERANCE_MS;
    const claims = (record?.history ?? []).filter(
      (h) => h.event === AuditEvent.CLAIMED && deadline !== undefined && h.at >= deadline,
    ).length;
    const tries = (action: 'signal' | 'resume') =>
      producer.tries.filter((t) => t.id === p.id && t.action === action).length;
    // A resume's wake matters whenever the task was paused: an unkeyed task paused while
    // running gave its message up, and only the resume (or the sweeper) sends a new one.
    const wakeRetried =
      (resumed !== undefined && tries('resume') > 1) ||
      (signalled !== undefined && signalled === deadline && tries('signal') > 1);
    return {
      id: p.id,
      kind: p.kind,
      details: afters.map((e) => e.detail ?? ''),
      deadline,
      continued,
      lateMs: continued === undefined || deadline === undefined ? undefined : continued - deadline,
      early,
      takeovers: Math.max(0, claims - 1),
      wakeRetried,
    };
  });
}

/**
 * Clocks of the processes agree (one machine), but a timer's end is stored in whole
 * milliseconds and the handler's clock is read before its effect's write.
 */
const TIMER_TOLERANCE_MS = 50;

/** What each kind of wait must have returned. */
export function expectedDetail(p: PlannedWait): string {
  if (p.kind === 'sleep') return 'slept';
  if (p.kind === 'never') return 'timeout';
  return `signal:${JSON.stringify(p.signal?.signalId)}`;
}

/** The value at quantile `q` (0-1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** `1.2 s`. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
