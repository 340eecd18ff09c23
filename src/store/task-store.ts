import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Defaults, TableSchema } from '../core/constants.js';
import type { ObjectRef, TaskErrorInfo, TaskRecord } from '../core/record.js';
import { checkRetention, type Retention } from '../settings/retention.js';
import * as leases from './lease-writes.js';
import { fromItem } from './record.js';
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
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [TableSchema.PARTITION_KEY]: taskId },
        ConsistentRead: true,
      }),
    );
    // An item without a status is no task: a rate limit's bucket (ADR 0026).
    return out.Item?.status === undefined ? undefined : fromItem(out.Item);
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

  /** RUNNING with a cancel request → CANCELLED: {@link leases.cancelRunning}. */
  cancelRunning(lease: Lease, detail: string): Promise<TaskRecord> {
    return leases.cancelRunning(this.ctx, lease, detail);
  }

  /** Writes one transition of the table as its one conditional write. */
  private write<I>(transition: Transition<I>, input: I): Promise<TaskRecord> {
    return writeTransition(this.ctx, transition, input);
  }
}

/** A part of the store: a class made on the store's write context (see `TaskStore.feature`). */
export type StorePart<T> = new (ctx: WriteContext) => T;
