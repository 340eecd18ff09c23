/**
 * The store's writes that are not lifecycle transitions: creating a task, deleting a DEAD
 * one, confirming a delayed task's record, and noting a duplicate. Each is
 * one conditional write, explained on refusal with the record DynamoDB saw (ALL_OLD).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AuditEvent, Defaults, TableSchema, TaskStatus } from '../core/constants.js';
import { TransitionRejectedError } from '../core/errors.js';
import type { HistoryEntry, TaskRecord } from '../core/record.js';
import { truncate } from '../core/record.js';
import { auditEntry } from '../observability/audit.js';
import { and, type Condition, equals, exists, generationIs } from './expression.js';
import { MAX_DETAIL_CHARS } from './history.js';
import { type NewTask, newTaskItem, type WriteContext } from './new-task.js';
import { fromItem, refusedRecord } from './record.js';
import { CREATE_CONDITION, refusedConfirmation } from './rollback.js';
import { releaseDone } from './status-index-keys.js';
import { toStoredEntry } from './stored-history.js';

export type { NewTask, Waiting, WriteContext } from './new-task.js';

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
 * The SCHEDULED record an enqueue wrote, as it wrote it: the same creation time (not a later
 * record of the same id), never attempted, the same generation.
 */
function untouchedSchedule(seen: Pick<TaskRecord, 'generation' | 'createdAt'>): Condition {
  return and([
    equals('createdAt', 'createdAt', seen.createdAt),
    equals('status', 'scheduled', TaskStatus.SCHEDULED),
    equals('attempt', 'zero', 0),
    generationIs('generation', seen.generation),
  ]);
}

/**
 * Writes a new task; an existing id is returned as it is, with `created: false`, except a
 * ROLLED_BACK record, which is replaced.
 */
export async function createTask(
  ctx: WriteContext,
  task: NewTask,
): Promise<{ record: TaskRecord; created: boolean }> {
  const { item, entry } = newTaskItem(ctx, task, ctx.clock());
  try {
    await ctx.doc.send(
      new PutCommand({
        TableName: ctx.tableName,
        Item: item,
        ...CREATE_CONDITION,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (err) {
    const existing =
      err instanceof ConditionalCheckFailedException ? refusedRecord(err) : undefined;
    if (existing !== undefined) return { record: existing, created: false };
    throw err;
  }
  const record = fromItem(item);
  auditEntry(ctx.logger, record, entry);
  return { record, created: true };
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
  // The DEAD record seen, and not while its release settles its dependents for this death:
  // they would wait for a parent that is gone (docs/adr/0038-model-found-enqueue-and-purge-fixes.md).
  const deadAsSeen = and([
    equals('status', 'dead', TaskStatus.DEAD),
    equals('updatedAt', 'seenUpdatedAt', seen.updatedAt),
    releaseDone(),
  ]);
  try {
    await ctx.doc.send(
      new DeleteCommand({
        TableName: ctx.tableName,
        Key: { [TableSchema.PARTITION_KEY]: seen.id },
        ConditionExpression: deadAsSeen.expression,
        ExpressionAttributeNames: deadAsSeen.names,
        ExpressionAttributeValues: deadAsSeen.values,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (err) {
    const current = err instanceof ConditionalCheckFailedException ? refusedRecord(err) : undefined;
    ctx.logger.warn(`task.${AuditEvent.PURGE_REFUSED}`, {
      audit: true,
      event: AuditEvent.PURGE_REFUSED,
      taskId: seen.id,
      taskType: seen.type,
      status: current?.status,
      at: new Date(ctx.clock()).toISOString(),
      detail:
        err instanceof ConditionalCheckFailedException
          ? `not deleted: the task is ${current?.status ?? 'gone'} now`
          : `not deleted: ${(err as Error).name}`,
      ...(principal === undefined ? {} : { principal }),
    });
    if (err instanceof ConditionalCheckFailedException) {
      throw new TransitionRejectedError('purge', seen.id, current);
    }
    throw err;
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
  const owned = and([exists('pk', TableSchema.PARTITION_KEY), untouchedSchedule(seen)]);
  try {
    const out = await ctx.doc.send(
      new UpdateCommand({
        TableName: ctx.tableName,
        Key: { [TableSchema.PARTITION_KEY]: seen.id },
        UpdateExpression: 'SET #confirmed = :true',
        ConditionExpression: owned.expression,
        ExpressionAttributeNames: { ...owned.names, '#confirmed': 'scheduleConfirmed' },
        ExpressionAttributeValues: { ...owned.values, ':true': true },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const current = out.Attributes === undefined ? undefined : fromItem(out.Attributes);
    return { outcome: 'confirmed', current };
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    const current = refusedRecord(err);
    return { outcome: refusedConfirmation(current, seen), current };
  }
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
  try {
    await ctx.doc.send(
      new UpdateCommand({
        TableName: ctx.tableName,
        Key: { [TableSchema.PARTITION_KEY]: record.id },
        UpdateExpression:
          'SET #history = list_append(#history, :entry), #notes = if_not_exists(#notes, :zero) + :one',
        ConditionExpression:
          'attribute_exists(#pk) AND (attribute_not_exists(#notes) OR #notes < :max)',
        ExpressionAttributeNames: {
          '#pk': TableSchema.PARTITION_KEY,
          '#history': 'history',
          '#notes': 'duplicateNotes',
        },
        ExpressionAttributeValues: {
          ':entry': [toStoredEntry(entry)],
          ':zero': 0,
          ':one': 1,
          ':max': Defaults.MAX_DUPLICATE_NOTES,
        },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/**
 * Records that the sweeper sent a PENDING task again, and when it may send it next: sets
 * `resends` to one more than `seen` showed and the status index's sort key (`statusAt`) to
 * `nextAt`, so the sweep's PENDING query skips the task until then. Not a transition (the
 * status stays) and no history entry, so a task waiting out a long backlog does not grow.
 * Pinned to the PENDING record seen (generation and resends), so of two sweepers only one
 * counts the send.
 *
 * @returns false when the task moved on (claimed, re-sent by another sweep, cancelled).
 */
export async function noteResent(
  ctx: WriteContext,
  seen: Pick<TaskRecord, 'id' | 'generation' | 'resends'>,
  nextAt: number,
): Promise<boolean> {
  const unchanged = and([
    exists('pk', TableSchema.PARTITION_KEY),
    equals('status', 'pending', TaskStatus.PENDING),
    generationIs('generation', seen.generation),
  ]);
  const resends =
    seen.resends === 0
      ? '(attribute_not_exists(#resends) OR #resends = :seen)'
      : '#resends = :seen';
  try {
    await ctx.doc.send(
      new UpdateCommand({
        TableName: ctx.tableName,
        Key: { [TableSchema.PARTITION_KEY]: seen.id },
        UpdateExpression: 'SET #resends = :resends, #statusAt = :nextAt',
        ConditionExpression: `${unchanged.expression} AND ${resends}`,
        ExpressionAttributeNames: {
          ...unchanged.names,
          '#resends': 'resends',
          '#statusAt': TableSchema.STATUS_INDEX_SORT_KEY,
        },
        ExpressionAttributeValues: {
          ...unchanged.values,
          ':seen': seen.resends,
          ':resends': seen.resends + 1,
          ':nextAt': nextAt,
        },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
