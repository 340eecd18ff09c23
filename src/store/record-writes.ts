/**
 * The store's writes on a task's record that are not lifecycle moves: creating a task,
 * deleting a DEAD one, confirming a delayed task's record, noting a duplicate or a re-send,
 * and asking a RUNNING task to cancel. Each sends its one row of the transition table
 * (transitions/records.ts) and reads a refusal from the record DynamoDB saw (ALL_OLD).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { AuditEvent, TableSchema, TaskStatus } from '../core/constants.js';
import { TransitionRejectedError } from '../core/errors.js';
import type { HistoryEntry, TaskRecord } from '../core/record.js';
import { truncate } from '../core/record.js';
import { auditEntry } from '../observability/audit.js';
import { MAX_DETAIL_CHARS, MAX_PRODUCER_ENTRIES, producerEntryCount } from './history.js';
import { type NewTask, newTaskItem } from './new-task.js';
import { fromItem } from './record.js';
import type { WriteContext } from './store-context.js';
import * as records from './transitions/records.js';
import { recordOf, send } from './transitions/writer.js';

export type { NewTask, Waiting } from './new-task.js';

/** Reads one task with a strongly consistent read. */
export async function getTask(ctx: WriteContext, taskId: string): Promise<TaskRecord | undefined> {
  const out = await ctx.doc.send(
    new GetCommand({
      TableName: ctx.tableName,
      Key: { [TableSchema.PARTITION_KEY]: taskId },
      ConsistentRead: true,
    }),
  );
  // An item without a status is no task: a rate limit's bucket (ADR 0026).
  return out.Item?.status === undefined ? undefined : fromItem(out.Item);
}

/**
 * Writes a new task; an existing id is returned as it is, with `created: false`, except a
 * ROLLED_BACK record, which is replaced.
 */
export async function createTask(
  ctx: WriteContext,
  task: NewTask,
): Promise<{ record: TaskRecord; created: boolean }> {
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
 * Deletes a DEAD task, if it is still the record the caller saw. The `purged` audit line is
 * written first: a delete leaves no record to show it, so a process that stops between the
 * two leaves the line, never a silent delete. A refused delete then logs `purge-refused`
 * with the status it found (docs/adr/0039-operator-audit.md).
 */
export async function purgeTask(
  ctx: WriteContext,
  seen: TaskRecord,
  principal?: string,
): Promise<void> {
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

/** What {@link confirmSchedule} found: its outcome, and the record as it is now when read. */
export interface Confirmation {
  readonly outcome: 'confirmed' | 'moved-on' | 'gone';
  /** The record after the write (confirmed) or the one that refused it (undefined: none). */
  readonly current: TaskRecord | undefined;
}

/** Marks a SCHEDULED task confirmed (see `TaskStore.confirmSchedule`). */
export async function confirmSchedule(
  ctx: WriteContext,
  seen: Pick<TaskRecord, 'id' | 'generation' | 'createdAt'>,
): Promise<Confirmation> {
  const sent = await send(ctx, records.confirmSchedule, { seen });
  if (sent.accepted) return { outcome: 'confirmed', current: recordOf(sent.item) };
  const current = recordOf(sent.current);
  return { outcome: refusedConfirmation(current, seen), current };
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

/** Appends a bounded `duplicate-dropped` entry (see `TaskStore.noteDuplicate`). */
export async function noteDuplicate(
  ctx: WriteContext,
  record: Pick<TaskRecord, 'id' | 'type' | 'attempt' | 'status'>,
  detail: string,
): Promise<boolean> {
  const entry: HistoryEntry = {
    event: AuditEvent.DUPLICATE_DROPPED,
    at: ctx.clock(),
    attempt: record.attempt,
    status: record.status,
    detail: truncate(detail, MAX_DETAIL_CHARS),
  };
  auditEntry(ctx.logger, record, entry);
  return (await send(ctx, records.noteDuplicate, { id: record.id, entry })).accepted;
}

/**
 * Records that the sweeper sent a PENDING task again, and when it may send it next (see
 * `TaskStore.noteResent`). No history entry, so a task waiting out a long backlog does not
 * grow.
 *
 * @returns false when the task moved on (claimed, re-sent by another sweep, cancelled).
 */
export async function noteResent(
  ctx: WriteContext,
  seen: Pick<TaskRecord, 'id' | 'generation' | 'resends'>,
  nextAt: number,
): Promise<boolean> {
  return (await send(ctx, records.noteResent, { seen, nextAt })).accepted;
}

/** What {@link requestCancel} did. */
export type CancelRequest =
  /** The mark was written now. */
  | { readonly kind: 'requested'; readonly record: TaskRecord }
  /** The task was already marked; nothing was written. */
  | { readonly kind: 'already-requested'; readonly record: TaskRecord };

/**
 * RUNNING, not yet asked → RUNNING with `cancelRequestedAt` (the `requestCancel` row). The
 * lease holder sees the mark on its next heartbeat (the heartbeat's write returns the
 * record) and ends the task CANCELLED with its own fenced write
 * (docs/adr/0022-progress-and-running-cancel.md). Asking twice writes once.
 *
 * @throws TransitionRejectedError when the task is not RUNNING (or does not exist); its
 *   `current` is the record DynamoDB saw, so the caller can cancel a QUEUED task instead.
 */
export async function requestCancel(
  ctx: WriteContext,
  seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'> & Partial<Pick<TaskRecord, 'history'>>,
  reason: string | undefined,
  principal?: string,
): Promise<CancelRequest> {
  const now = ctx.clock();
  const entry: HistoryEntry = {
    event: AuditEvent.CANCEL_REQUESTED,
    at: now,
    attempt: seen.attempt,
    status: TaskStatus.RUNNING,
    ...(reason === undefined ? {} : { detail: truncate(reason, MAX_DETAIL_CHARS) }),
    ...(principal === undefined ? {} : { principal }),
  };
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
