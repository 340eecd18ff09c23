/**
 * A new task as the store writes it: its input ({@link NewTask}), and the item and first
 * history entry of its record.
 */

import { AuditEvent, TableSchema, TaskStatus } from '../core/constants.js';
import type { DebounceSpec } from '../core/debounce.js';
import { messageGroupOf } from '../core/message.js';
import type { HistoryEntry, ObjectRef } from '../core/record.js';
import { truncate } from '../core/record.js';
import { MAX_DETAIL_CHARS, type StoredEntry, toStoredEntry } from './history.js';
import { payloadHash, type TaskItem } from './record.js';
import { statusIndexKeys } from './status-index-keys.js';

/** Input of `RecordWrites.create`. */
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
  /** The producer's active span, when it traces (docs/tracing.md). */
  readonly traceparent?: string | undefined;
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
  ctx: { readonly statusShards: number },
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
    messageGroupId: task.messageGroupId === messageGroupOf(task) ? undefined : task.messageGroupId,
    // A first generation is left out (see generationIs): `fromItem` reads its absence as 1.
    timeoutMs: task.timeoutMs,
    runAt: task.runAt,
    createdAt: now,
    // Enqueue order matters only among the tasks of one ordering key.
    sequence: task.orderingKey === undefined ? undefined : task.sequence,
    integrityTag: task.integrityTag,
    traceparent: task.traceparent,
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
