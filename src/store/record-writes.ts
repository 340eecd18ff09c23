/**
 * The store's writes on a task's record that are not lifecycle moves: creating a task,
 * deleting a DEAD one, confirming a delayed task's record, noting a duplicate or a re-send,
 * and asking a RUNNING task to cancel. Each sends its one row of the transition table
 * (transitions/records.ts) and reads a refusal from the record DynamoDB saw (ALL_OLD).
 *
 * They are producers', the sweeper's and operators' writes, so they are a part of the store
 * made on first use (`store.feature(RecordWrites)`): a worker, which makes none of them but
 * for a recurring schedule's firing, does not load them, nor a new task's item, at start
 * (docs/adr/0070-store-parts-on-first-use.md).
 */
import { AuditEvent, TaskStatus } from '../core/constants.js';
import { TransitionRejectedError } from '../core/errors.js';
import type { HistoryEntry, TaskRecord } from '../core/record.js';
import { truncate } from '../core/record.js';
import { auditEntry } from '../observability/audit.js';
import {
  MAX_DETAIL_CHARS,
  MAX_PRODUCER_ENTRIES,
  producerEntryCount,
  runningRequestEntry,
} from './history.js';
import { type NewTask, newTaskItem } from './new-task.js';
import { fromItem } from './record.js';
import type { WriteContext } from './store-context.js';
import * as records from './transitions/records.js';
import { recordOf, send } from './transitions/writer.js';

export type { NewTask, Waiting } from './new-task.js';

/** What {@link RecordWrites.confirmSchedule} found: its outcome, and the record as it is now when read. */
export interface Confirmation {
  readonly outcome: 'confirmed' | 'moved-on' | 'gone';
  /** The record after the write (confirmed) or the one that refused it (undefined: none). */
  readonly current: TaskRecord | undefined;
}

/** What {@link RecordWrites.requestCancel} did. */
export type CancelRequest =
  /** The mark was written now. */
  | { readonly kind: 'requested'; readonly record: TaskRecord }
  /** The task was already marked; nothing was written. */
  | { readonly kind: 'already-requested'; readonly record: TaskRecord };

/** The record writes that are not lifecycle moves, on one table: `store.feature(RecordWrites)`. */
export class RecordWrites {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * (new) → PENDING, or (new) → SCHEDULED with `scheduled` (history event `scheduled`, and
   * the status index sorted by `runAt`, so the sweeper finds overdue ones). Idempotent: when
   * the id exists, nothing is written and the existing record is returned with
   * `created: false`; the caller decides whether it conflicts. A ROLLED_BACK record is
   * replaced, by a record created strictly after it ({@link createdAfter}).
   */
  async create(task: NewTask): Promise<{ record: TaskRecord; created: boolean }> {
    const ctx = this.ctx;
    let now = ctx.clock();
    for (;;) {
      const { item, entry } = newTaskItem(ctx, task, now);
      const sent = await send(ctx, records.create, { item });
      if (sent.accepted) {
        const record = fromItem(item);
        auditEntry(ctx.logger, record, entry);
        return { record, created: true };
      }
      const existing = recordOf(sent.current);
      // Only an existing item refuses a create, and comes back with it: this is a guard.
      if (existing === undefined) throw new TransitionRejectedError('create', task.id, undefined);
      const later = createdAfter(existing, now);
      if (later === undefined) return { record: existing, created: false };
      now = later;
    }
  }

  /**
   * Deletes a DEAD task's record for good, and nothing else: `purgeDead`
   * (src/store/purge.ts) deletes its steps and park item after it. Conditional on it still
   * being the DEAD record the caller saw, so a concurrent redrive wins. Refused, like a
   * redrive, while the release of its dependents for this death is pending: `TaskClient`'s
   * purges finish it first (docs/adr/0038-model-found-enqueue-and-purge-fixes.md).
   *
   * The `purged` audit line, with `principal`, is written first: a delete leaves no record
   * to show it, so a process that stops between the two leaves the line, never a silent
   * delete. A refused delete then logs `purge-refused` with the status it found
   * (docs/adr/0039-operator-audit.md).
   */
  async purge(seen: TaskRecord, principal?: string): Promise<void> {
    const ctx = this.ctx;
    auditEntry(
      ctx.logger,
      seen,
      {
        event: AuditEvent.PURGED,
        at: ctx.clock(),
        attempt: seen.attempt,
        status: TaskStatus.DEAD,
        ...(seen.deadReason === undefined
          ? {}
          : { detail: truncate(seen.deadReason, MAX_DETAIL_CHARS) }),
        ...(principal === undefined ? {} : { principal }),
      },
      { diedAt: new Date(seen.updatedAt).toISOString() },
    );
    const refused = (current: TaskRecord | undefined, detail: string) =>
      ctx.logger.warn(`task.${AuditEvent.PURGE_REFUSED}`, {
        audit: true,
        event: AuditEvent.PURGE_REFUSED,
        taskId: seen.id,
        taskType: seen.type,
        status: current?.status,
        at: new Date(ctx.clock()).toISOString(),
        detail,
        ...(principal === undefined ? {} : { principal }),
      });
    let sent: Awaited<ReturnType<typeof send>>;
    try {
      sent = await send(ctx, records.purge, { seen });
    } catch (err) {
      refused(undefined, `not deleted: ${(err as Error).name}`);
      throw err;
    }
    if (!sent.accepted) {
      const current = recordOf(sent.current);
      refused(current, `not deleted: the task is ${current?.status ?? 'gone'} now`);
      throw new TransitionRejectedError('purge', seen.id, current);
    }
  }

  /**
   * Marks a SCHEDULED task `scheduleConfirmed`: an enqueue that found the record (a retry of
   * the one that wrote it) has made sure of its schedule and is about to report the task as
   * enqueued. From then on `RepairWrites.discard` refuses, so the writing enqueue can no
   * longer roll back a task that another caller was told exists. Not a transition (the
   * status stays), so no history entry. Pinned to the record seen: its creation time tells
   * it apart from a later record of the same id.
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
  async confirmSchedule(
    seen: Pick<TaskRecord, 'id' | 'generation' | 'createdAt'>,
  ): Promise<Confirmation> {
    const sent = await send(this.ctx, records.confirmSchedule, { seen });
    if (sent.accepted) return { outcome: 'confirmed', current: recordOf(sent.item) };
    const current = recordOf(sent.current);
    return { outcome: refusedConfirmation(current, seen), current };
  }

  /**
   * Appends a `duplicate-dropped` entry to a task's history without changing anything else:
   * the record of an idempotent no-op (e.g. a recurring schedule's firing delivered twice).
   * At most `Defaults.MAX_DUPLICATE_NOTES` such entries are kept, so the item stays bounded;
   * beyond that the event is only logged.
   *
   * @returns false when the entry was not stored (limit reached, or no such task).
   */
  async noteDuplicate(
    record: Pick<TaskRecord, 'id' | 'type' | 'attempt' | 'status'>,
    detail: string,
  ): Promise<boolean> {
    const entry: HistoryEntry = {
      event: AuditEvent.DUPLICATE_DROPPED,
      at: this.ctx.clock(),
      attempt: record.attempt,
      status: record.status,
      detail: truncate(detail, MAX_DETAIL_CHARS),
    };
    auditEntry(this.ctx.logger, record, entry);
    return (await send(this.ctx, records.noteDuplicate, { id: record.id, entry })).accepted;
  }

  /**
   * Notes that the sweeper sent a PENDING task again: counts it (`resends`) and moves its
   * index entry to `nextAt`, before which the sweep does not send it again. Not a
   * transition: the status stays PENDING and the history is untouched, so a task waiting out
   * a long backlog does not grow.
   *
   * @returns false when the task is no longer the PENDING record seen (claimed, re-sent by
   *   another sweep, cancelled).
   */
  async noteResent(
    seen: Pick<TaskRecord, 'id' | 'generation' | 'resends'>,
    nextAt: number,
  ): Promise<boolean> {
    return (await send(this.ctx, records.noteResent, { seen, nextAt })).accepted;
  }

  /**
   * RUNNING, not yet asked → RUNNING with `cancelRequestedAt` (the `requestCancel` row): one
   * conditional write, not fenced by the lease. The lease holder sees the mark on its next
   * heartbeat (the heartbeat's write returns the record) and ends the task CANCELLED with
   * its own fenced write, `TaskStore.cancelRunning`
   * (docs/adr/0022-progress-and-running-cancel.md). Asking twice writes once.
   *
   * @throws TransitionRejectedError when the task is not RUNNING (or does not exist); its
   *   `current` is the record DynamoDB saw, so the caller can cancel a QUEUED task instead.
   */
  async requestCancel(
    seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'> & Partial<Pick<TaskRecord, 'history'>>,
    reason?: string,
    principal?: string,
  ): Promise<CancelRequest> {
    const ctx = this.ctx;
    const now = ctx.clock();
    const entry = runningRequestEntry(
      AuditEvent.CANCEL_REQUESTED,
      now,
      seen.attempt,
      reason,
      principal,
    );
    // One entry at most per run (the mark is never set twice while it runs, and only a
    // redrive starts another), and no more than the list's bound over the record's life.
    const noted = producerEntryCount(seen.history ?? []) < MAX_PRODUCER_ENTRIES;
    const sent = await send(
      ctx,
      records.requestCancel,
      { id: seen.id, entry: noted ? entry : undefined },
      now,
    );
    if (sent.accepted) {
      const record = fromItem(sent.item ?? {});
      auditEntry(ctx.logger, record, entry);
      return { kind: 'requested', record };
    }
    const current = recordOf(sent.current);
    if (current?.status === TaskStatus.RUNNING && current.cancelRequested) {
      return { kind: 'already-requested', record: current };
    }
    throw new TransitionRejectedError(records.requestCancel.name, seen.id, current);
  }
}

/**
 * When `existing`, refused to a create at `now`, is a rolled-back record created at `now` or
 * after it: the time one millisecond after it, at which the create is written again, so that
 * the new record is created strictly after the one it replaces (the `create` row's condition,
 * docs/adr/0065-a-revived-id-is-created-later.md). Otherwise undefined: the create was refused
 * for another reason (the id is taken, or the rolled-back record's release is not done).
 */
export function createdAfter(existing: TaskRecord, now: number): number | undefined {
  return existing.status === TaskStatus.ROLLED_BACK && existing.createdAt >= now
    ? existing.createdAt + 1
    : undefined;
}

/**
 * How a refused schedule confirmation is read: `gone` when the record seen is no longer
 * there to be confirmed (none, a later record of the id, or rolled back), else `moved-on`
 * (docs/adr/0015-rollback-moves-instead-of-deleting.md).
 */
function refusedConfirmation(
  current: TaskRecord | undefined,
  seen: Pick<TaskRecord, 'createdAt'>,
): 'moved-on' | 'gone' {
  if (current === undefined || current.createdAt !== seen.createdAt) return 'gone';
  return current.status === TaskStatus.ROLLED_BACK ? 'gone' : 'moved-on';
}
