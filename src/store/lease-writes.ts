/**
 * The writes of a worker that holds a task's lease: the claim that takes it, the heartbeat
 * that keeps it, and the ends of every run (done, retried, dead, given back, cancelled); a
 * durable run's own writes (checkpoint, continuation, suspension, pause) are
 * durable-writes.ts's. Each is one conditional write fenced by
 * the lease (the claim by the attempt it expects), as the table in transitions/ describes it;
 * `TaskStore` offers each as its method of the same name.
 */

import { randomUUID } from 'node:crypto';
import type { ObjectRef, TaskErrorInfo, TaskRecord } from '../core/record.js';
import type { LogAttributes } from '../observability/logger.js';
import type { WriteContext } from './store-context.js';
import type { ClaimTarget } from './transitions/lifecycle.js';
import * as lifecycle from './transitions/lifecycle.js';
import { writeTransition } from './transitions/move.js';
import * as parking from './transitions/parking.js';
import type { Lease } from './transitions/row.js';

/** What a claim is given besides its target. */
export interface ClaimOptions {
  workerId: string;
  leaseMs: number;
  detail?: string;
  fresh?: boolean;
  /** Added to the claim's audit line, not to the history (e.g. the message id). */
  log?: LogAttributes;
}

/**
 * QUEUED | PENDING | SCHEDULED, due | RUNNING with an expired lease → RUNNING, as attempt
 * `target.attempt + 1` under a fresh lease, in one conditional write and without reading
 * the record first (docs/adr/0020-claim-without-pre-read.md). The write is fenced by the
 * attempt the target expects, the task's type and (when given) message group, and
 * attempts left, so two workers racing for the same attempt cannot both win. With
 * `fresh`, a lease takeover (RUNNING, or requeued after a lost lease) is refused.
 *
 * @throws TransitionRejectedError with the record DynamoDB held (ALL_OLD), or none when
 *   there is no such task, for the caller's claim decision.
 */
export async function claim(
  ctx: WriteContext,
  target: ClaimTarget,
  options: ClaimOptions,
): Promise<{ record: TaskRecord; lease: Lease }> {
  const leaseToken = randomUUID();
  const { workerId, leaseMs, detail, log } = options;
  const fresh = options.fresh === true;
  const input = { target, workerId, leaseToken, leaseMs, detail, fresh, log };
  const record = await writeTransition(ctx, lifecycle.claim, input);
  const { id: taskId, type: taskType, attempt, history, dependents } = record;
  const lease = { taskId, taskType, attempt, leaseToken, workerId, history, dependents };
  return { record, lease };
}

/**
 * RUNNING → RUNNING with a later lease expiry (a heartbeat). Fenced by the lease. The
 * heartbeat is counted (`heartbeats`, `lastHeartbeatAt`) and logged, not added to the
 * history, so a long run does not grow the item. `progressJson`, the handler's latest
 * progress, rides on the same write. The returned record shows a cancel request.
 */
export function extendLease(
  ctx: WriteContext,
  lease: Lease,
  leaseMs: number,
  progressJson?: string,
): Promise<TaskRecord> {
  return writeTransition(ctx, lifecycle.extendLease, { lease, leaseMs, progressJson });
}

/**
 * RUNNING → SUCCEEDED, the terminal write. Fenced by the lease. A claim-checked result is
 * already in S3; the record gets its reference. `note` goes into the history entry.
 */
export function complete(
  ctx: WriteContext,
  lease: Lease,
  resultJson: string | undefined,
  resultRef?: ObjectRef,
  note?: string,
): Promise<TaskRecord> {
  const input = { lease, resultJson, note, ...(resultRef && { resultRef }) };
  return writeTransition(ctx, lifecycle.complete, input);
}

/**
 * RUNNING → QUEUED after a failed attempt with attempts left. Fenced by the lease. With
 * `offIndex`, the task stays out of the status index (docs/adr/0068-a-retry-stays-off-the-index.md).
 */
export function retry(
  ctx: WriteContext,
  lease: Lease,
  error: TaskErrorInfo,
  delayMs: number,
  offIndex = false,
): Promise<TaskRecord> {
  return writeTransition(ctx, lifecycle.retry, { lease, error, delayMs, offIndex });
}

/**
 * RUNNING → DEAD: last attempt failed, a permanent error, an unknown type or an invalid
 * payload. Fenced by the lease. DEAD tasks keep no TTL: they wait for a redrive or a purge.
 * With `parkedKey`, the task also parks its ordering key (records `parkedKey`).
 */
export function kill(
  ctx: WriteContext,
  lease: Lease,
  reason: string,
  options: { error?: TaskErrorInfo; parkedKey?: string | undefined },
): Promise<TaskRecord> {
  const { error, parkedKey } = options;
  return parkedKey === undefined
    ? writeTransition(ctx, lifecycle.kill, { lease, reason, error })
    : writeTransition(ctx, parking.killAndPark, { lease, reason, error, parkedKey });
}

/** How a claim is given back. */
export interface UnclaimOptions {
  readonly takeover: boolean;
  readonly delayMs: number;
  readonly ran?: boolean | undefined;
}

/**
 * RUNNING → QUEUED, the claim given back unspent: a dependency the start needs failed before
 * the handler ran (an S3 or KMS outage). The attempt returns to the one before the claim and
 * the lease is removed; `takeover` restores the lost-lease mark a takeover's claim removed.
 * `delayMs` is when the message comes back. Fenced by the lease.
 */
export function unclaim(
  ctx: WriteContext,
  lease: Lease,
  reason: string,
  options: UnclaimOptions,
): Promise<TaskRecord> {
  return writeTransition(ctx, lifecycle.unclaim, { lease, reason, ...options });
}

/**
 * RUNNING with a cancel request → CANCELLED, by the lease holder that saw the request.
 * Fenced by the lease, so a stale worker's write is refused (LeaseLostError).
 */
export function cancelRunning(
  ctx: WriteContext,
  lease: Lease,
  detail: string,
): Promise<TaskRecord> {
  return writeTransition(ctx, lifecycle.cancelRunning, { lease, detail });
}
