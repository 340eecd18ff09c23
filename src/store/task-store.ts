import { Defaults } from '../core/constants.js';
import type { ObjectRef, TaskErrorInfo, TaskRecord } from '../core/record.js';
import { checkRetention, type Retention } from '../settings/retention.js';
import * as leases from './lease-writes.js';
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
import { resolveStatusShards } from './status-index-keys.js';
import { type TaskStoreOptions, type WriteContext, writeContext } from './store-context.js';
import type { ClaimTarget } from './transitions/lifecycle.js';
import * as lifecycle from './transitions/lifecycle.js';
import { writeTransition } from './transitions/move.js';
import * as parking from './transitions/parking.js';
import type { Lease, Transition } from './transitions/row.js';

export type { PauseRunningOptions } from './durable-writes.js';
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
 *
 * What only some tasks or callers need is a part of the store made on first use, by
 * {@link feature} or {@link part}: parked keys, dependencies, debounce, rate buckets, a
 * durable run's steps, signals and writes. The store does not import them, so a worker whose
 * tasks do not use them does not load them at start (docs/adr/0070-store-parts-on-first-use.md).
 */
export class TaskStore {
  readonly tableName: string;
  readonly statusShards: number;
  /** How long a finished task is kept (docs/adr/0010-retention-and-overdue-resend.md). */
  readonly retention: Retention;
  private readonly ctx: WriteContext;
  private readonly features = new Map<StorePart<unknown>, unknown>();

  constructor(options: TaskStoreOptions) {
    this.tableName = options.tableName;
    this.statusShards = resolveStatusShards(options.statusShards);
    const retention = checkRetention(options.retention ?? Defaults.RETENTION_MS);
    this.retention = retention;
    this.ctx = writeContext(options, this.statusShards, retention, options.clock ?? Date.now);
  }

  /**
   * This store's part of class `Part`, made on its first use and kept: one per store, as the
   * store's own fields were. E.g. `store.feature(ParkedKeys)`, `store.feature(StepStore)`.
   */
  feature<T>(Part: StorePart<T>): T {
    let made = this.features.get(Part) as T | undefined;
    if (made === undefined) {
      made = new Part(this.ctx);
      this.features.set(Part, made);
    }
    return made;
  }

  /**
   * What `make` builds on this table's write context, each call anew: for a read that needs
   * more than the context (a listing's filter, the sweeper's paused lanes). A part that needs
   * only the context is {@link feature}'s, made once. The store imports neither, so a bundle
   * that never calls them (the worker's) leaves their code out (docs/adr/0006-worker-bundle.md).
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

  /** RUNNING → QUEUED after a failed attempt with attempts left: {@link leases.retry}. */
  retry(
    lease: Lease,
    error: TaskErrorInfo,
    delayMs: number,
    offIndex = false,
  ): Promise<TaskRecord> {
    return leases.retry(this.ctx, lease, error, delayMs, offIndex);
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
   * Deletes a DEAD task's record for good, and nothing else: `purgeDead`
   * (src/store/purge.ts) deletes its steps and park item after it. Conditional on it still
   * being the DEAD record the caller saw, so a concurrent redrive wins. Logged as a `purged`
   * audit event, with `principal`, before the delete, so a crash in between leaves a trace (a
   * refused delete then logs `purge-refused`; docs/adr/0039-operator-audit.md). Refused, like
   * a redrive, while the release of its dependents for this death is pending: `TaskClient`'s
   * purges finish it first (docs/adr/0038-model-found-enqueue-and-purge-fixes.md).
   */
  purgeRecord(seen: TaskRecord, principal?: string): Promise<void> {
    return purgeTask(this.ctx, seen, principal);
  }

  /**
   * Marks a SCHEDULED task `scheduleConfirmed`: an enqueue that found the record (a retry of
   * the one that wrote it) has made sure of its schedule and is about to report the task as
   * enqueued. From then on `RepairWrites.discard` refuses, so the writing enqueue can no
   * longer roll back a task that another caller was told exists. Not a transition (the status stays),
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

/** A part of the store: a class made on the store's write context (see `TaskStore.feature`). */
export type StorePart<T> = new (ctx: WriteContext) => T;
