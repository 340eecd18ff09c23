/**
 * The store's writes that are not lifecycle transitions: creating a task, deleting a DEAD
 * one, confirming a delayed task's record, and noting a duplicate. Each is
 * one conditional write, explained on refusal with the record DynamoDB saw (ALL_OLD).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ObjectRef } from '../claim-check/object-ref.js';
import { AuditEvent, Defaults, TableSchema, TaskStatus } from '../constants.js';
import { TransitionRejectedError } from '../errors.js';
import { auditEntry } from '../observability/audit.js';
import type { TaskLogger } from '../observability/logger.js';
import { truncate } from '../text.js';
import type { DebounceSpec } from './debounce-spec.js';
import { and, type Condition, equals, exists, generationIs } from './expression.js';
import { MAX_DETAIL_CHARS } from './history.js';
import {
  fromItem,
  type HistoryEntry,
  payloadHash,
  refusedRecord,
  type TaskItem,
  type TaskRecord,
} from './record.js';
import { CREATE_CONDITION, refusedConfirmation } from './rollback.js';
import { statusIndexKeys } from './status-index-keys.js';
import { type StoredEntry, toStoredEntry } from './stored-history.js';

/** What these writes need of the store. */
export interface WriteContext {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly statusShards: number;
  readonly clock: () => number;
  readonly logger: TaskLogger;
}

/** Input of {@link createTask}. */
export interface NewTask {
  readonly id: string;
  readonly type: string;
  readonly payloadJson: string;
  /**
   * The payload's claim check, already stored in S3: the record then holds this reference
   * instead of `payloadJson` (docs/adr/0023-claim-check-payloads.md).
   */
  readonly payloadRef?: ObjectRef | undefined;
  readonly payloadHash: string;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  readonly orderingKey?: string | undefined;
  readonly messageGroupId: string;
  /** Not to run before this instant (epoch ms); the worker holds an early message back. */
  readonly runAt?: number | undefined;
  /**
   * Create the task SCHEDULED (delivered later by an EventBridge Scheduler one-time
   * schedule) instead of PENDING. Needs `runAt`.
   */
  readonly scheduled?: boolean | undefined;
  /** Recorded in the first history entry, e.g. which schedule fired the task. */
  readonly detail?: string | undefined;
  /** The producer's enqueue order (see {@link TaskRecord.sequence}). */
  readonly sequence?: string | undefined;
  /** The integrity tag (src/integrity/tag.ts), when integrity is on. */
  readonly integrityTag?: string | undefined;
  /** `'park'` when the type parks its ordering key on death (see {@link TaskRecord.onDead}). */
  readonly onDead?: 'park' | undefined;
  /** The task's lane, absent for the default lane (see {@link TaskRecord.lane}). */
  readonly lane?: string | undefined;
  /** Enqueued with `debounce` (docs/adr/0029-debounce.md): its key, window and mode. */
  readonly debounce?: DebounceSpec | undefined;
  /** The tasks this one waits for (`dependsOn`); see {@link TaskRecord.parents}. */
  readonly parents?: readonly string[] | undefined;
  /** `'run'` when a DEAD or CANCELLED parent counts as finished. */
  readonly onParentDead?: 'run' | undefined;
}

/** A stored entry without its time: the first entry's is the record's `createdAt`. */
function withoutTime(stored: StoredEntry): StoredEntry {
  const { t: _time, ...rest } = stored;
  return rest;
}

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

/** A new task's wait for its parents (docs/adr/0030-dependencies.md). */
export interface Waiting {
  /** Parents not finished yet; 0 creates the task PENDING, as without parents. */
  readonly waitingOn: number;
  /** Parents already finished, counted at enqueue. */
  readonly releasedBy: readonly string[];
}

/**
 * The item and first history entry of a new task: SCHEDULED with `scheduled`, WAITING while
 * `waiting` has parents left, else PENDING.
 */
export function newTaskItem(
  ctx: WriteContext,
  task: NewTask,
  now: number,
  waiting?: Waiting,
): { item: TaskItem; entry: HistoryEntry } {
  const scheduled = task.scheduled === true && task.runAt !== undefined;
  const waits = waiting !== undefined && waiting.waitingOn > 0;
  const status = scheduled ? TaskStatus.SCHEDULED : waits ? TaskStatus.WAITING : TaskStatus.PENDING;
  const detail = waits ? `waiting for ${waiting.waitingOn} parent(s)` : task.detail;
  const entry: HistoryEntry = {
    event: scheduled ? AuditEvent.SCHEDULED : AuditEvent.SUBMITTED,
    at: now,
    attempt: 0,
    status,
    ...(detail === undefined ? {} : { detail: truncate(detail, MAX_DETAIL_CHARS) }),
  };
  const inline = task.payloadRef === undefined;
  const item: TaskItem = {
    [TableSchema.PARTITION_KEY]: task.id,
    type: task.type,
    status,
    payload: inline ? task.payloadJson : undefined,
    payloadRef: task.payloadRef,
    // Only what the record cannot work out again is written (docs/adr/0027-compact-history.md).
    payloadHash:
      inline && payloadHash(task.type, task.payloadJson) === task.payloadHash
        ? undefined
        : task.payloadHash,
    attempt: 0,
    maxAttempts: task.maxAttempts,
    orderingKey: task.orderingKey,
    messageGroupId:
      task.messageGroupId === (task.orderingKey ?? task.id) ? undefined : task.messageGroupId,
    // A first generation is left out (see generationIs): `fromItem` reads its absence as 1.
    timeoutMs: task.timeoutMs,
    runAt: task.runAt,
    createdAt: now,
    // Enqueue order matters only among the tasks of one ordering key.
    sequence: task.orderingKey === undefined ? undefined : task.sequence,
    integrityTag: task.integrityTag,
    onDead: task.onDead,
    lane: task.lane,
    debounceKey: task.debounce?.key,
    debounceMode: task.debounce?.mode,
    updatedAt: now,
    // The first entry's time is the record's `createdAt`; it is not stored twice.
    history: [withoutTime(toStoredEntry(entry))],
    ...(task.parents === undefined || task.parents.length === 0
      ? {}
      : {
          parents: task.parents,
          onParentDead: task.onParentDead,
          waitingOn: waits ? waiting.waitingOn : undefined,
          // DynamoDB refuses an empty set: the attribute is left out instead.
          releasedBy:
            waits && waiting.releasedBy.length > 0 ? new Set(waiting.releasedBy) : undefined,
        }),
    ...statusIndexKeys(task.id, status, scheduled ? (task.runAt as number) : now, ctx.statusShards),
  };
  return { item, entry };
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

/** Deletes a DEAD task, if it is still the record the caller saw. */
export async function purgeTask(ctx: WriteContext, seen: TaskRecord): Promise<void> {
  try {
    await ctx.doc.send(
      new DeleteCommand({
        TableName: ctx.tableName,
        Key: { [TableSchema.PARTITION_KEY]: seen.id },
        ConditionExpression: '#status = :dead AND #updatedAt = :seenUpdatedAt',
        ExpressionAttributeNames: { '#status': 'status', '#updatedAt': 'updatedAt' },
        ExpressionAttributeValues: { ':dead': TaskStatus.DEAD, ':seenUpdatedAt': seen.updatedAt },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) {
      const current = refusedRecord(err);
      throw new TransitionRejectedError('purge', seen.id, current);
    }
    throw err;
  }
  auditEntry(ctx.logger, seen, {
    event: AuditEvent.PURGED,
    at: ctx.clock(),
    attempt: seen.attempt,
    status: TaskStatus.DEAD,
  });
}

/** Marks a SCHEDULED task confirmed (see `TaskStore.confirmSchedule`). */
export async function confirmSchedule(
  ctx: WriteContext,
  seen: Pick<TaskRecord, 'id' | 'generation' | 'createdAt'>,
): Promise<'confirmed' | 'moved-on' | 'gone'> {
  const owned = and([exists('pk', TableSchema.PARTITION_KEY), untouchedSchedule(seen)]);
  try {
    await ctx.doc.send(
      new UpdateCommand({
        TableName: ctx.tableName,
        Key: { [TableSchema.PARTITION_KEY]: seen.id },
        UpdateExpression: 'SET #confirmed = :true',
        ConditionExpression: owned.expression,
        ExpressionAttributeNames: { ...owned.names, '#confirmed': 'scheduleConfirmed' },
        ExpressionAttributeValues: { ...owned.values, ':true': true },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'confirmed';
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    return refusedConfirmation(refusedRecord(err), seen);
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
