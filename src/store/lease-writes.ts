/**
 * The writes of a worker that holds a task's lease: the claim that takes it, the heartbeat
 * and the checkpoint that keep it, and every end of the run (done, retried, continued,
 * suspended, paused, dead, given back, cancelled). Each is one conditional write fenced by
 * the lease (the claim by the attempt it expects), as the table in transitions/ describes it;
 * `TaskStore` offers each as its method of the same name.
 */

import { randomUUID } from 'node:crypto';
import type {
  HeldMessage,
  ObjectRef,
  TaskErrorInfo,
  TaskRecord,
  TaskWait,
} from '../core/record.js';
import type { LogAttributes } from '../observability/logger.js';
import type { WriteContext } from './store-context.js';
import { durable, type Lease, lifecycle, parking, suspension } from './transitions/index.js';
import type { ClaimTarget } from './transitions/lifecycle.js';
import { writeTransition } from './transitions/move.js';
import { send } from './transitions/writer.js';

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
 * RUNNING → RUNNING with the handler's checkpoint stored and any pending progress written:
 * one write, fenced by the lease (a stale holder's save is a LeaseLostError), which leaves
 * the lease as it is (`leaseExpiresAt`, as last written). The returned record shows a
 * cancel request.
 */
export function saveCheckpoint(
  ctx: WriteContext,
  lease: Lease,
  leaseExpiresAt: number,
  checkpoint: durable.StoredCheckpoint,
  progressJson?: string,
): Promise<TaskRecord> {
  const input = { lease, leaseExpiresAt, checkpoint, progressJson };
  return writeTransition(ctx, durable.saveCheckpoint, input);
}

/**
 * RUNNING → QUEUED by a handler's `ctx.continue()`: no attempt spent, one more
 * continuation counted. Fenced by the lease. The caller keeps the message, which runs the
 * next slice from the head of its group.
 */
export function continueRun(
  ctx: WriteContext,
  lease: Lease,
  continuations: number,
  maxContinuations: number,
  progressJson?: string,
): Promise<TaskRecord> {
  const input = { lease, continuations, maxContinuations, progressJson };
  return writeTransition(ctx, durable.continueRun, input);
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
 * RUNNING → SUSPENDED by a handler's `ctx.sleep` or `ctx.waitForSignal`: no attempt spent;
 * the record keeps `wait`, and the message is held (`keeping.held`) or released under a new
 * generation (`keeping.generation`). Fenced by the lease, and refused while a cancel or
 * pause request is pending or, for a signal wait, once a signal came after `signalsSeen`.
 */
export function suspend(
  ctx: WriteContext,
  lease: Lease,
  wait: TaskWait,
  keeping: suspension.MessageKeeping,
  progressJson?: string,
): Promise<TaskRecord> {
  return writeTransition(ctx, suspension.suspend, { lease, wait, progressJson, ...keeping });
}

/** What a run paused at its pause request keeps. */
export interface PauseRunningOptions {
  readonly wait?: TaskWait | undefined;
  readonly keeping: suspension.MessageKeeping;
  readonly progressJson?: string | undefined;
}

/**
 * RUNNING with a pause request → PAUSED, by the lease holder that saw it: no attempt spent;
 * with `wait`, the run was about to sleep or wait, and the resume puts it back SUSPENDED.
 */
export function pauseRunning(
  ctx: WriteContext,
  lease: Lease,
  detail: string,
  options: PauseRunningOptions,
): Promise<TaskRecord> {
  const { wait, keeping, progressJson } = options;
  const input = { lease, detail, wait, progressJson, ...keeping };
  return writeTransition(ctx, suspension.pauseRunning, input);
}

/**
 * Notes the message a worker now keeps in flight for a SUSPENDED or PAUSED task (its receipt
 * handle), if the task is still the one `seen` (same status, generation and attempt, not
 * woken). @returns false when it moved on: the worker shows the message again.
 */
export async function noteHold(
  ctx: WriteContext,
  seen: Pick<TaskRecord, 'id' | 'status' | 'generation' | 'attempt'>,
  held: HeldMessage,
): Promise<boolean> {
  return (await send(ctx, suspension.noteHold, { seen, held })).accepted;
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
