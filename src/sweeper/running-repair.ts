/**
 * The repair of a RUNNING task whose lease expired, shared by the sweeper's three ways of
 * finding one (docs/adr/0052-running-leaves-the-status-index.md): the legacy RUNNING pass of
 * the status index, the dead-letter pass, and the opt-in running scan. Whichever finds it,
 * the repair is the same fenced transition: `requeue` (RUNNING → PENDING under a new
 * generation, for the sweep to send) while attempts are left, else `expire` (→ DEAD), whose
 * dependents are released. A worker's claim takes over the same expired lease the same way
 * (src/worker/claim-decision.ts, docs/adr/0007-lease-takeovers-run-alone.md), so the two race on one conditional write and the
 * loser sees a rejected transition. The dead-letter pass and the scan find retrying tasks off
 * the index too (docs/adr/0068-a-retry-stays-off-the-index.md), which are sent again as the
 * index's overdue pass sends an overdue QUEUED task.
 */
import { TaskStatus } from '../core/constants.js';
import { describeError, TransitionRejectedError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { releaseDependents } from '../dependencies/release.js';
import type { TaskLogger } from '../observability/logger.js';
import { RepairWrites } from '../store/repair-writes.js';
import type { LostCandidates } from '../store/running-reads.js';
import type { TaskStore } from '../store/task-store.js';
import { resendOverdue } from './overdue.js';

/** The worker id the sweeper's transitions are recorded under. */
export const SWEEPER_ACTOR = 'sweeper';

/** What {@link repairExpiredRunning} did. */
export type RunningRepair =
  /** Not RUNNING, or its lease has not expired: nothing written. */
  | { readonly kind: 'live' }
  /** Requeued: `send` is the PENDING record to send. */
  | { readonly kind: 'requeued'; readonly send: readonly TaskRecord[] }
  /** Declared DEAD on its final attempt: `send` are the dependents its end released. */
  | { readonly kind: 'killed'; readonly send: readonly TaskRecord[] };

/**
 * Repairs `record` if it is RUNNING under a lease that ended at or before `now`.
 *
 * @throws TransitionRejectedError when a worker or another sweeper moved the task first.
 */
export async function repairExpiredRunning(
  deps: { readonly store: TaskStore; readonly logger: TaskLogger },
  record: TaskRecord,
  now: number,
): Promise<RunningRepair> {
  if (record.status !== TaskStatus.RUNNING) return { kind: 'live' };
  if ((record.leaseExpiresAt ?? 0) > now) return { kind: 'live' };
  const { store } = deps;
  if (record.attempt >= record.maxAttempts) {
    const dead = await store.expire(record, 'lease expired on the final attempt', SWEEPER_ACTOR);
    // Sent with the sweep's other sends: checked, and in enqueue order.
    const send =
      (dead.dependents ?? []).length > 0 ? (await releaseDependents(dead, deps)).released : [];
    return { kind: 'killed', send };
  }
  const pending = await store
    .feature(RepairWrites)
    .requeue(record, `lease of attempt ${record.attempt} expired`, SWEEPER_ACTOR);
  return { kind: 'requeued', send: [pending] };
}

/** The counts a repair adds to, and the sends it queues up. */
export interface RepairTally {
  requeued: number;
  killed: number;
  /** Retrying tasks off the index, long overdue, given a new generation to be sent again. */
  resent: number;
  conflicts: number;
  failed: number;
}

/** What the repair of a retrying task off the index needs of the sweep. */
export interface RetryingRepair {
  /** The overdue instant of the sweep (`overdueBefore`), which fences the resend. */
  readonly queuedBefore: number;
  /** True when the sweep leaves the task alone: its key is parked, or its lane paused. */
  readonly leaveAlone: (record: TaskRecord) => Promise<boolean>;
}

/**
 * Repairs what a dead-letter pass or the running scan found: each RUNNING task whose lease
 * ended at or before `now` as {@link repairExpiredRunning} does, and each retrying task off
 * the index (docs/adr/0068-a-retry-stays-off-the-index.md) as the index's overdue pass does
 * an overdue QUEUED one: a new generation, sent again (`resendOverdue`). Counts go into
 * `tally`, sends onto `toSend`. A rejected transition is a conflict; any other error is
 * logged and counted as failed, and the next record goes on.
 */
export async function repairEach(
  deps: { readonly store: TaskStore; readonly logger: TaskLogger },
  found: LostCandidates,
  now: number,
  retrying: RetryingRepair,
  tally: RepairTally,
  toSend: TaskRecord[],
): Promise<void> {
  for (const record of found.records) {
    await repairCounted(deps, record, tally, async () => {
      const repair = await repairExpiredRunning(deps, record, now);
      if (repair.kind === 'live') return;
      tally[repair.kind] += 1;
      toSend.push(...repair.send);
    });
  }
  for (const record of found.retrying) {
    await repairCounted(deps, record, tally, async () => {
      if (await retrying.leaveAlone(record)) return;
      toSend.push(await resendOverdue(deps.store, record, retrying.queuedBefore, deps.logger));
      tally.resent += 1;
    });
  }
}

/**
 * Runs one task's repair for a sweep: a rejected transition (another actor moved the task
 * first) counts as a conflict; any other error is logged and counted as failed, so the next
 * task goes on.
 */
export async function repairCounted(
  deps: { readonly logger: TaskLogger },
  record: TaskRecord,
  tally: Pick<RepairTally, 'conflicts' | 'failed'>,
  repair: () => Promise<void>,
): Promise<void> {
  try {
    await repair();
  } catch (err) {
    if (err instanceof TransitionRejectedError) {
      tally.conflicts += 1;
      return;
    }
    tally.failed += 1;
    deps.logger.error('sweep could not repair a task; skipped until the next sweep', {
      taskId: record.id,
      status: record.status,
      error: describeError(err),
    });
  }
}
