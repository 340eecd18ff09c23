import { Defaults } from '../core/constants.js';
import { TransitionRejectedError } from '../core/errors.js';
import type {
  HeldMessage,
  ObjectRef,
  TaskErrorInfo,
  TaskRecord,
  TaskWait,
} from '../core/record.js';
import { DEFAULT_LANE } from '../settings/lanes.js';
import { checkRetention, type Retention } from '../settings/retention.js';
import { DebounceStore } from './debounce.js';
import { DependencyStore } from './dependency-store.js';
import * as leases from './lease-writes.js';
import { ParkedKeys } from './parked-keys.js';
import {
  type Confirmation,
  confirmSchedule,
  createTask,
  getTask,
  type NewTask,
  noteDuplicate,
  noteResent,
  purgeTask,
  requestCancel,
} from './record-writes.js';
import { SignalStore } from './signals.js';
import { resolveStatusShards } from './status-index-keys.js';
import { StepStore } from './steps.js';
import { type TaskStoreOptions, type WriteContext, writeContext } from './store-context.js';
import { TokenBuckets } from './token-bucket.js';
import {
  durable,
  type Lease,
  lifecycle,
  parking,
  repairs,
  type Seen,
  type SeenHistory,
  suspension,
  type Transition,
} from './transitions/index.js';
import type { ClaimTarget } from './transitions/lifecycle.js';
import { writeTransition } from './transitions/move.js';
import { send } from './transitions/writer.js';

export type { HeldParkMessage, ParkRecord } from './parked-keys.js';
export type { PauseRequest, PauseSeen } from './pauses.js';
export type { TaskPage } from './queries.js';
export type { CancelRequest, Confirmation, NewTask } from './record-writes.js';
export type { NewSignal, SignalSeen, SignalWrite, StoredSignal } from './signals.js';
export type { IndexStream, StatusIndex, StreamQuery } from './status-index.js';
export type { TaskStoreOptions } from './store-context.js';
export type { StoredCheckpoint } from './transitions/durable.js';
export type { ClaimTarget } from './transitions/lifecycle.js';
export type { Lease } from './transitions/row.js';
export type { MessageKeeping } from './transitions/suspension.js';

/**
 * The DynamoDB task store. Each lifecycle transition is one method and one conditional
 * write, as the table in transitions/ describes it: the condition names the allowed
 * starting state(s) and, for a worker's writes, the lease token and attempt. A refused write
 * is explained with the record DynamoDB saw (ReturnValuesOnConditionCheckFailure = ALL_OLD).
 * Every write emits an audit line and, except a heartbeat, adds its entry to the history,
 * which keeps within a byte budget (ADR 0008). The store never scans: listing uses the
 * sharded status index. The writes of a worker holding a task's lease are made in
 * lease-writes.ts.
 */
export class TaskStore {
  readonly tableName: string;
  readonly statusShards: number;
  /** How long a finished task is kept (docs/adr/0010-retention-and-overdue-resend.md). */
  readonly retention: Retention;
  /** The park items of parked ordering keys (docs/adr/0024-parked-keys.md). */
  readonly parkedKeys: ParkedKeys;
  /** Tasks that wait for others (docs/adr/0030-dependencies.md). */
  readonly dependencies: DependencyStore;
  /** The debounce pointers and folds (docs/adr/0029-debounce.md). */
  readonly debounces: DebounceStore;
  /** The rate limits' buckets (ADR 0026). */
  readonly rateBuckets: TokenBuckets;
  /** Durable tasks' step items (docs/adr/0047-durable-tasks.md). */
  readonly steps: StepStore;
  /** Durable tasks' signals (docs/adr/0048-durable-sleep-signals-pause.md). */
  readonly signals: SignalStore;
  private readonly ctx: WriteContext;

  constructor(options: TaskStoreOptions) {
    this.tableName = options.tableName;
    this.statusShards = resolveStatusShards(options.statusShards);
    const retention = checkRetention(options.retention ?? Defaults.RETENTION_MS);
    this.retention = retention;
    this.ctx = writeContext(options, this.statusShards, retention, options.clock ?? Date.now);
    this.parkedKeys = new ParkedKeys(this.ctx);
    this.dependencies = new DependencyStore(this.ctx);
    this.debounces = new DebounceStore(this.ctx);
    this.rateBuckets = new TokenBuckets(this.ctx);
    this.steps = new StepStore(this.ctx);
    this.signals = new SignalStore(this.ctx);
  }

  /**
   * A store of one concern made on this table's write context by `make`, for a concern only
   * some callers need (the operator's pauses, src/store/pauses.ts): the store does not import
   * it, so a bundle that never calls it (the worker's) leaves its code out
   * (docs/adr/0006-worker-bundle.md).
   */
  part<T>(make: (ctx: WriteContext) => T): T {
    return make(this.ctx);
  }

  /** Reads one task with a strongly consistent read. */
  get(taskId: string): Promise<TaskRecord | undefined> {
    return getTask(this.ctx, taskId);
  }

  /**
   * (new) → PENDING, or (new) → SCHEDULED with `scheduled` (history event `scheduled`, and
   * the status index sorted by `runAt`, so the sweeper finds overdue ones). Idempotent: when
   * the id exists, nothing is written and the existing record is returned with
   * `created: false`; the caller decides whether it conflicts. A ROLLED_BACK record is replaced.
   */
  create(task: NewTask): Promise<{ record: TaskRecord; created: boolean }> {
    return createTask(this.ctx, task);
  }

  /**
   * Notes that the sweeper sent a PENDING task again: counts it (`resends`) and moves its
   * index entry to `nextAt`, before which the sweep does not send it again. Not a
   * transition: the status stays PENDING and the history is untouched.
   *
   * @returns false when the task is no longer the PENDING record seen (it moved on).
   */
  noteResent(
    seen: Pick<TaskRecord, 'id' | 'generation' | 'resends'>,
    nextAt: number,
  ): Promise<boolean> {
    return noteResent(this.ctx, seen, nextAt);
  }

  /** QUEUED | PENDING | SCHEDULED, due | RUNNING, lease expired → RUNNING: {@link leases.claim}. */
  claim(
    target: ClaimTarget,
    options: leases.ClaimOptions,
  ): Promise<{ record: TaskRecord; lease: Lease }> {
    return leases.claim(this.ctx, target, options);
  }

  /** RUNNING → RUNNING with a later lease expiry, a heartbeat: {@link leases.extendLease}. */
  extendLease(lease: Lease, leaseMs: number, progressJson?: string): Promise<TaskRecord> {
    return leases.extendLease(this.ctx, lease, leaseMs, progressJson);
  }

  /** RUNNING → SUCCEEDED: {@link leases.complete}. */
  complete(
    lease: Lease,
    resultJson: string | undefined,
    resultRef?: ObjectRef,
    note?: string,
  ): Promise<TaskRecord> {
    return leases.complete(this.ctx, lease, resultJson, resultRef, note);
  }

  /** RUNNING → RUNNING with the handler's checkpoint stored: {@link leases.saveCheckpoint}. */
  saveCheckpoint(
    lease: Lease,
    leaseExpiresAt: number,
    checkpoint: durable.StoredCheckpoint,
    progressJson?: string,
  ): Promise<TaskRecord> {
    return leases.saveCheckpoint(this.ctx, lease, leaseExpiresAt, checkpoint, progressJson);
  }

  /** RUNNING → QUEUED by `ctx.continue()`: {@link leases.continueRun}. */
  continueRun(
    lease: Lease,
    continuations: number,
    maxContinuations: number,
    progressJson?: string,
  ): Promise<TaskRecord> {
    return leases.continueRun(this.ctx, lease, continuations, maxContinuations, progressJson);
  }

  /** RUNNING → QUEUED after a failed attempt with attempts left: {@link leases.retry}. */
  retry(
    lease: Lease,
    error: TaskErrorInfo,
    delayMs: number,
    offIndex = false,
  ): Promise<TaskRecord> {
    return leases.retry(this.ctx, lease, error, delayMs, offIndex);
  }

  /** RUNNING → SUSPENDED by `ctx.sleep` or `ctx.waitForSignal`: {@link leases.suspend}. */
  suspend(
    lease: Lease,
    wait: TaskWait,
    keeping: suspension.MessageKeeping,
    progressJson?: string,
  ): Promise<TaskRecord> {
    return leases.suspend(this.ctx, lease, wait, keeping, progressJson);
  }

  /** RUNNING with a pause request → PAUSED: {@link leases.pauseRunning}. */
  pauseRunning(
    lease: Lease,
    detail: string,
    options: leases.PauseRunningOptions,
  ): Promise<TaskRecord> {
    return leases.pauseRunning(this.ctx, lease, detail, options);
  }

  /** Notes the message a worker keeps for a waiting task: {@link leases.noteHold}. */
  noteHold(
    seen: Pick<TaskRecord, 'id' | 'status' | 'generation' | 'attempt'>,
    held: HeldMessage,
  ): Promise<boolean> {
    return leases.noteHold(this.ctx, seen, held);
  }

  /**
   * Notes that the sweeper wakes a SUSPENDED task whose wake was lost: under the next
   * generation, due again at `nextAt` in the status index. @returns false when the task
   * moved on.
   */
  async noteWake(seen: Pick<TaskRecord, 'id' | 'generation'>, nextAt: number): Promise<boolean> {
    return (await send(this.ctx, suspension.noteWake, { seen, nextAt })).accepted;
  }

  /** RUNNING → DEAD, parking its ordering key with `parkedKey`: {@link leases.kill}. */
  kill(
    lease: Lease,
    reason: string,
    options: { error?: TaskErrorInfo; parkedKey?: string | undefined } = {},
  ): Promise<TaskRecord> {
    return leases.kill(this.ctx, lease, reason, options);
  }

  /** RUNNING → QUEUED, the claim given back unspent: {@link leases.unclaim}. */
  unclaim(lease: Lease, reason: string, options: leases.UnclaimOptions): Promise<TaskRecord> {
    return leases.unclaim(this.ctx, lease, reason, options);
  }

  /**
   * RUNNING with a lease that ran out on the final attempt → DEAD, by another actor than the
   * lease holder (the sweeper, or a worker given the task's message). Fenced by the lease
   * `seen` shows having expired, so the holder's own late write and this one cannot both
   * land; a refusal is a LeaseLostError. `actor` is recorded as the history entry's worker.
   */
  expire(seen: TaskRecord, reason: string, actor: string): Promise<TaskRecord> {
    // A parking type's task parks its key however it died: the record says which it is.
    const parkedKey = parking.keyToPark(seen);
    return parkedKey === undefined
      ? this.write(lifecycle.expire, { seen, reason, actor })
      : this.write(parking.expireAndPark, { seen, reason, actor, parkedKey });
  }

  /**
   * SCHEDULED | PENDING | QUEUED → CANCELLED (a RUNNING one is asked with
   * {@link requestCancel}). `seen` is
   * the record the caller read; its attempt is pinned so the history entry is exact.
   */
  cancel(
    seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'> & SeenHistory,
    reason?: string,
    principal?: string,
  ) {
    return this.write(repairs.cancel, { seen, reason, principal });
  }

  /**
   * Marks a RUNNING task `cancelRequested` (see {@link requestCancel}): one conditional
   * write, not fenced by the lease; the lease holder then ends it with {@link cancelRunning}.
   */
  requestCancel(
    seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'>,
    reason?: string,
    principal?: string,
  ) {
    return requestCancel(this.ctx, seen, reason, principal);
  }

  /** RUNNING with a cancel request → CANCELLED: {@link leases.cancelRunning}. */
  cancelRunning(lease: Lease, detail: string): Promise<TaskRecord> {
    return leases.cancelRunning(this.ctx, lease, detail);
  }

  /**
   * RUNNING with an expired lease → PENDING under a new generation, so the sweeper can send
   * a fresh message (a new deduplication id). The attempt is kept: the next claim counts as
   * a new one. PENDING rather than QUEUED, so that a failed send leaves the task in the
   * outbox instead of stranding it. Fenced by the expired lease's token and attempt.
   * `actor` (e.g. `sweeper`) is recorded as the history entry's worker.
   */
  requeue(seen: TaskRecord, reason: string, actor?: string): Promise<TaskRecord> {
    return this.write(repairs.requeue, { seen, reason, actor });
  }

  /**
   * QUEUED, due before `overdueBefore` → PENDING under a new generation, so the sweeper can
   * send a fresh message: the task's own message may be gone (it outlived the queue's
   * retention). The attempt is kept. PENDING rather than QUEUED, as for a requeue, so that a
   * failed send leaves the task in the outbox. Fenced by the record's status, generation and
   * attempt, and by its due time (the status index's sort key) still being overdue, so a
   * claim, a retry or another sweeper in between makes this write lose.
   */
  resend(seen: TaskRecord, overdueBefore: number, actor?: string): Promise<TaskRecord> {
    return this.write(repairs.resend, { seen, overdueBefore, actor });
  }

  /**
   * DEAD → PENDING with a fresh attempt budget and a new generation; the history is kept.
   * The caller then sends the message and marks it sent, as for a new task.
   */
  redrive(
    seen: Seen & Pick<TaskRecord, 'stepEpoch'>,
    reason?: string,
    principal?: string,
    restart = false,
  ): Promise<TaskRecord> {
    const input = { seen, reason, principal };
    return restart
      ? this.write(durable.redriveAfresh, { ...input, stepEpoch: (seen.stepEpoch ?? 0) + 1 })
      : this.write(repairs.redrive, input);
  }

  /**
   * Deletes a DEAD task for good. Conditional on it still being the DEAD record the caller
   * saw, so a concurrent redrive wins. Logged as a `purged` audit event, with `principal`,
   * before the delete, so a crash in between leaves a trace (a refused delete then logs
   * `purge-refused`; docs/adr/0039-operator-audit.md). Refused, like a redrive, while the
   * release of its dependents for this death is pending: `TaskClient`'s purges finish it
   * first (docs/adr/0038-model-found-enqueue-and-purge-fixes.md). A parked task's
   * park item goes with it (if it is still that task's); a crash in between leaves an item
   * that parks nothing, which the next sweep or listing deletes (`ParkedKeys.verified`).
   */
  async purge(seen: TaskRecord, principal?: string): Promise<void> {
    await purgeTask(this.ctx, seen, principal);
    // Its steps go after it: a purge refused (the task redriven meanwhile) keeps them. Its
    // signals go next, by the client (src/client/purge.ts), whose code a worker does not load.
    await this.steps.deleteAll(seen.id, seen.stepEpoch ?? 0);
    if (seen.parkedKey !== undefined) {
      const lane = seen.lane === DEFAULT_LANE ? undefined : seen.lane;
      await this.parkedKeys.delete(seen.parkedKey, seen.id, lane);
      // A park held since before items had lanes lies under the default lane's name.
      if (lane !== undefined) await this.parkedKeys.delete(seen.parkedKey, seen.id);
    }
  }

  /**
   * Marks a SCHEDULED task `scheduleConfirmed`: an enqueue that found the record (a retry of
   * the one that wrote it) has made sure of its schedule and is about to report the task as
   * enqueued. From then on {@link discard} refuses, so the writing enqueue can no longer roll
   * back a task that another caller was told exists. Not a transition (the status stays),
   * so no history entry. Pinned to the record seen: its creation time tells it apart from a
   * later record of the same id.
   *
   * The enqueue that wrote the record confirms it too, once its schedule is created: another
   * enqueue of the id whose own CreateSchedule failed may have rolled it back meanwhile
   * (docs/adr/0038-model-found-enqueue-and-purge-fixes.md).
   *
   * @returns outcome `confirmed` (now or before); `moved-on` when the task left SCHEDULED
   *   (fired, sent or cancelled), so no rollback can touch it either; `gone` when the record
   *   seen no longer exists (rolled back, perhaps replaced by a new record of the same id);
   *   with the record as it is now (`current`), when DynamoDB returned it.
   */
  confirmSchedule(
    seen: Pick<TaskRecord, 'id' | 'generation' | 'createdAt'>,
  ): Promise<Confirmation> {
    return confirmSchedule(this.ctx, seen);
  }

  /**
   * SCHEDULED → ROLLED_BACK: takes back a delayed task whose schedule this enqueue could not
   * create, so it never runs, and a retry of the same id creates it afresh over it. Only a
   * record this enqueue still owns is moved (see the `rollback` transition): one conditional
   * UpdateItem, so producers need no DeleteItem (docs/adr/0015-rollback-moves-instead-of-deleting.md).
   *
   * @returns `discarded: true` with the ROLLED_BACK record when moved (its `dependents`
   *   are to be released); otherwise the record DynamoDB held instead (undefined when there
   *   is none), which is left as it is.
   */
  async discard(
    seen: Pick<TaskRecord, 'id' | 'type' | 'generation' | 'createdAt'> & SeenHistory,
    reason: string,
  ): Promise<{ readonly discarded: boolean; readonly current?: TaskRecord | undefined }> {
    try {
      return { discarded: true, current: await this.write(repairs.rollback, { seen, reason }) };
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      return { discarded: false, current: err.current };
    }
  }

  /**
   * Appends a `duplicate-dropped` entry to a task's history without changing anything else:
   * the record of an idempotent no-op (e.g. a recurring schedule's firing delivered twice).
   * At most `Defaults.MAX_DUPLICATE_NOTES` such entries are kept, so the item stays bounded;
   * beyond that the event is only logged.
   *
   * @returns false when the entry was not stored (limit reached, or no such task).
   */
  noteDuplicate(
    record: Pick<TaskRecord, 'id' | 'type' | 'attempt' | 'status'>,
    detail: string,
  ): Promise<boolean> {
    return noteDuplicate(this.ctx, record, detail);
  }

  /** Writes one transition of the table as its one conditional write. */
  private write<I>(transition: Transition<I>, input: I): Promise<TaskRecord> {
    return writeTransition(this.ctx, transition, input);
  }
}
