/**
 * What a worker does when a dependency the start of a run needs fails after the claim: the
 * payload's S3 object cannot be read, or KMS cannot check the integrity tag. Neither is a
 * verdict on the task, so neither spends an attempt: the claim is given back (the `unclaim`
 * transition) and the message returns later, still at the head of its group
 * (docs/adr/0034-dependency-outages.md).
 */
import { AuditEvent } from '../core/constants.js';
import { describeError, LeaseLostError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { Lease } from '../store/task-store.js';
import { auditTask, LEASE_LOST, type Outcome, type ProcessorDeps } from './deps.js';

/** The dependency whose failure stopped a start. */
export const Dependency = {
  S3: 'S3',
  KMS: 'KMS',
} as const;

/** One of the {@link Dependency} values. */
export type Dependency = (typeof Dependency)[keyof typeof Dependency];

/** How long the first message given back after an outage stays away. */
export const OUTAGE_HOLD_MS = 10_000;
/** The longest such hold, reached after a few outages in a row. */
export const OUTAGE_HOLD_MAX_MS = 300_000;

/**
 * The hold of a message given back after an outage, doubling with its receive count
 * (10 s, 20 s, … 5 min). An outage costs receives, not attempts; doubling spends the
 * queue's `maxReceiveCount` (50 by default) over hours, not minutes, and keeps a long
 * outage from costing two writes every few seconds per waiting task.
 */
export function outageHoldMs(receiveCount: number): number {
  const doublings = Math.min(Math.max(0, receiveCount - 1), 5);
  return Math.min(OUTAGE_HOLD_MAX_MS, OUTAGE_HOLD_MS * 2 ** doublings);
}

/**
 * Gives the claim back unspent after `dependency` failed with `err` before the handler ran:
 * the task is QUEUED again at its earlier attempt and its message returns after the outage
 * hold. Logged at error level, so a dependency that never recovers (a misconfigured key
 * policy or bucket grant) is seen, not retried silently. When the lease is already gone,
 * the message returns at once, as after any lost lease.
 */
export async function unclaimAfterOutage(
  task: {
    readonly record: TaskRecord;
    readonly lease: Lease;
    /** The claim took over a lost lease: the record keeps saying so. */
    readonly takeover: boolean;
    readonly receiveCount: number;
  },
  deps: ProcessorDeps,
  dependency: Dependency,
  err: unknown,
  /** The handler had run: a durable task's step or checkpoint met the outage. */
  ran = false,
): Promise<Outcome> {
  const { record, lease } = task;
  const error = describeError(err);
  const when = ran ? 'during a durable run' : 'before the run';
  deps.logger.error(`${dependency} failed ${when}; the claim is given back unspent`, {
    taskId: record.id,
    taskType: record.type,
    attempt: lease.attempt,
    dependency,
    error,
  });
  const delayMs = outageHoldMs(task.receiveCount);
  const reason = `${dependency} unavailable (${error})`;
  try {
    await deps.store.unclaim(lease, reason, { takeover: task.takeover, delayMs, ran });
  } catch (failure) {
    if (!(failure instanceof LeaseLostError)) throw failure;
    auditTask(deps, failure.current ?? record, AuditEvent.STALE_DROPPED, failure.message);
    return LEASE_LOST;
  }
  return { kind: 'retry', delayMs };
}
