import { createHash } from 'node:crypto';
import { encodeTime } from 'ulid';
import { type ObjectRef, toObjectRef } from '../claim-check/object-ref.js';
import { isTerminal, OnDead, TableSchema, type TaskStatus } from '../constants.js';
import { messageGroupOf } from '../message-group.js';
import { payloadHash } from './canonical-json.js';
import { DebounceMode } from './debounce-spec.js';
import type { HistoryEntry } from './history-entry.js';
import { fromStoredEntry, inheritWorkers, latestClaimWorker } from './stored-history.js';

export { canonicalJson, MAX_PAYLOAD_DEPTH, payloadHash } from './canonical-json.js';

export type { HistoryEntry } from './history-entry.js';

/** The error a failed attempt left behind. */
export interface TaskErrorInfo {
  readonly name: string;
  readonly message: string;
}

/**
 * A task as stored in DynamoDB: the source of truth for "has this task run?".
 * Times are epoch milliseconds.
 */
export interface TaskRecord {
  readonly id: string;
  readonly type: string;
  readonly status: TaskStatus;
  /**
   * The payload as enqueued (before schema transforms). Undefined when it is claim-checked:
   * then {@link payloadRef} says where it is.
   */
  readonly payload: unknown;
  /** A payload above the threshold, stored in the payload bucket (docs/large-payloads.md). */
  readonly payloadRef: ObjectRef | undefined;
  /** SHA-256 of the canonical JSON of type and payload; detects idempotency conflicts. */
  readonly payloadHash: string;
  /** Attempts started so far. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly orderingKey: string | undefined;
  /** SQS MessageGroupId: the ordering key, or an unkeyed group of its own (message-group.ts). */
  readonly messageGroupId: string;
  /** Bumped on every (re)send, so each send gets a fresh SQS deduplication id. */
  readonly generation: number;
  readonly timeoutMs: number;
  readonly createdAt: number;
  /**
   * The producer's enqueue order: a monotonic ULID taken in call order, and in input order
   * within an `enqueueBatch`, before the concurrent writes. Absent on tasks a worker created
   * (recurring firings). See {@link compareEnqueueOrder}.
   */
  readonly sequence: string | undefined;
  readonly updatedAt: number;
  readonly runAt: number | undefined;
  readonly leaseToken: string | undefined;
  readonly leaseExpiresAt: number | undefined;
  readonly workerId: string | undefined;
  /**
   * The handler's result. For a claim-checked result, `TaskClient.get` fills it from S3
   * (unless `{ fetch: false }`); the stored record holds only {@link resultRef}.
   */
  readonly result: unknown;
  /** A result above the threshold, stored in the payload bucket. */
  readonly resultRef: ObjectRef | undefined;
  readonly lastError: TaskErrorInfo | undefined;
  readonly deadReason: string | undefined;
  readonly finishedAt: number | undefined;
  /**
   * A delayed task only: an enqueue other than the one that wrote the record found or made
   * its schedule and reported the task as enqueued. The writing enqueue then no longer rolls
   * it back when its own CreateSchedule fails (ADR 0009).
   */
  readonly scheduleConfirmed: boolean;
  /**
   * The sweeper requeued the task after its attempt lost the lease, and nobody has claimed
   * it since: its next claim is a lease takeover, which runs alone (ADR 0007). Cleared by
   * the claim and by a redrive.
   */
  readonly leaseLost: boolean;
  /**
   * Times the sweeper has sent this PENDING task again since it last became PENDING; each
   * one pushes its next re-send further out (docs/adr/0020-claim-without-pre-read.md).
   * Cleared by the claim and by a redrive.
   */
  readonly resends: number;
  /**
   * The task's transitions, oldest first, within a byte budget: once past it, the entries
   * between the first one and the newest ones are folded into {@link historyTruncated}.
   * Heartbeats are not entries (see {@link heartbeats}). Every entry also went to the log.
   */
  readonly history: readonly HistoryEntry[];
  /** History entries folded away to keep the history within its budget (0 when none). */
  readonly historyTruncated: number;
  /** Heartbeats (lease extensions) recorded over all attempts, counted instead of listed. */
  readonly heartbeats: number;
  /** When the latest heartbeat was recorded (epoch ms); undefined before the first. */
  readonly lastHeartbeatAt: number | undefined;
  /**
   * The integrity tag (`v2:<base64 KMS HMAC>:<key>` over the payload and the fields that
   * decide how and where the task runs; a bare base64 MAC for a version-1 tag) when the
   * producer had integrity on; see docs/security.md.
   */
  readonly integrityTag: string | undefined;
  /**
   * The latest details a handler reported with `ctx.progress()` (JSON, at most 4 KB), as
   * written by its lease's heartbeat; undefined before any. Never part of the history.
   */
  readonly progress: unknown;
  /** When {@link progress} was written (epoch ms). */
  readonly progressAt: number | undefined;
  /**
   * `client.cancel` asked a RUNNING task to stop, and it has not stopped yet: its worker ends
   * it CANCELLED once it sees the request (docs/progress-and-cancel.md).
   */
  readonly cancelRequested: boolean;
  /** When the cancel of a running task was requested (epoch ms); kept once it has stopped. */
  readonly cancelRequestedAt: number | undefined;
  /**
   * `'park'` when the task's type parks its ordering key on death (written at enqueue, so
   * the sweeper knows it too); absent for the default, `'release'`.
   */
  readonly onDead?: typeof OnDead.PARK | undefined;
  /**
   * On a DEAD task: the ordering key it parked, held by its message until it is redriven or
   * the key is released (docs/adr/0024-parked-keys.md).
   */
  readonly parkedKey?: string | undefined;
  /** The tasks this one was enqueued to wait for (`dependsOn`), in the order given. */
  readonly parents?: readonly string[] | undefined;
  /** On a WAITING task: parents not yet counted as finished; it starts when this reaches 0. */
  readonly waitingOn?: number | undefined;
  /** `'run'` when a DEAD or CANCELLED parent counts as finished; absent for `'cancel'`. */
  readonly onParentDead?: 'run' | undefined;
  /** Parents whose outcome this task has already counted (makes each release idempotent). */
  readonly releasedBy?: readonly string[] | undefined;
  /** Tasks that wait for this one (docs/adr/0030-dependencies.md). */
  readonly dependents?: readonly string[] | undefined;
  /**
   * The lane whose queue the task's messages go to, from its type's definition (written at
   * creation, so every re-send goes there too); absent for the default lane
   * (docs/adr/0028-lanes.md).
   */
  readonly lane?: string | undefined;
  /** A task enqueued with `debounce`: its key and mode, and the enqueues it absorbed. */
  readonly debounce?: DebounceInfo | undefined;
}

/** What a debounced task shows (docs/debounce.md); its window ends at `runAt`. */
export interface DebounceInfo {
  readonly key: string;
  readonly mode: DebounceMode;
  /** Later enqueues folded into this task (0 when only the first one). */
  readonly absorbed: number;
}

/** The raw DynamoDB item, as the document client returns it. */
export type TaskItem = Record<string, unknown>;

/** Shard of the status index a task belongs to; stable for the task's whole life. */
export function statusShard(id: string, shards: number): number {
  return createHash('sha256').update(id).digest().readUInt32BE(0) % shards;
}

/** Partition key value of the status index. */
export function statusShardKey(status: TaskStatus, shard: number): string {
  return `${status}#${shard}`;
}

function optionalString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function optionalNumber(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function parseJson(v: unknown): unknown {
  return typeof v === 'string' ? JSON.parse(v) : undefined;
}

/**
 * Maps a stored item to a {@link TaskRecord}. The only place that knows attribute names.
 * What the item leaves out because it follows from the rest is filled in here
 * (docs/adr/0027-compact-history.md): the payload hash of an inline payload, the message
 * group of a task whose group is its ordering key or id, and the worker, kept in the
 * latest claim's history entry.
 */
export function fromItem(item: TaskItem): TaskRecord {
  const id = String(item[TableSchema.PARTITION_KEY]);
  const type = String(item.type);
  const orderingKey = optionalString(item.orderingKey);
  const createdAt = Number(item.createdAt);
  const history = Array.isArray(item.history)
    ? inheritWorkers(item.history.map((entry) => fromStoredEntry(entry, createdAt)))
    : [];
  return {
    id,
    type,
    status: item.status as TaskStatus,
    payload: parseJson(item.payload),
    payloadRef: toObjectRef(item.payloadRef),
    payloadHash:
      typeof item.payloadHash === 'string'
        ? item.payloadHash
        : payloadHash(type, typeof item.payload === 'string' ? item.payload : ''),
    attempt: Number(item.attempt ?? 0),
    maxAttempts: Number(item.maxAttempts),
    orderingKey,
    messageGroupId: optionalString(item.messageGroupId) ?? messageGroupOf({ id, orderingKey }),
    generation: Number(item.generation ?? 1),
    timeoutMs: Number(item.timeoutMs),
    createdAt,
    sequence: optionalString(item.sequence),
    updatedAt: Number(item.updatedAt),
    runAt: optionalNumber(item.runAt),
    leaseToken: optionalString(item.leaseToken),
    leaseExpiresAt: optionalNumber(item.leaseExpiresAt),
    workerId: latestClaimWorker(history) ?? optionalString(item.workerId),
    result: parseJson(item.result),
    resultRef: toObjectRef(item.resultRef),
    lastError: (item.lastError as TaskErrorInfo | undefined) ?? undefined,
    deadReason: optionalString(item.deadReason),
    finishedAt:
      optionalNumber(item.finishedAt) ??
      (item.status === 'SUCCEEDED' ? optionalNumber(item.updatedAt) : undefined),
    scheduleConfirmed: item.scheduleConfirmed === true,
    leaseLost: item.leaseLost === true,
    resends: Number(item.resends ?? 0),
    history,
    historyTruncated: Number(item.historyTruncated ?? 0),
    heartbeats: Number(item.heartbeats ?? 0),
    lastHeartbeatAt: optionalNumber(item.lastHeartbeatAt),
    integrityTag: optionalString(item.integrityTag),
    progress: parseJson(item.progress),
    progressAt: optionalNumber(item.progressAt),
    cancelRequested:
      typeof item.cancelRequestedAt === 'number' && !isTerminal(item.status as TaskStatus),
    cancelRequestedAt: optionalNumber(item.cancelRequestedAt),
    ...(item.onDead === OnDead.PARK ? { onDead: OnDead.PARK } : {}),
    ...(typeof item.parkedKey === 'string' ? { parkedKey: item.parkedKey } : {}),
    ...(typeof item.lane === 'string' ? { lane: item.lane } : {}),
    ...(typeof item.debounceKey === 'string'
      ? {
          debounce: {
            key: item.debounceKey,
            mode: item.debounceMode === DebounceMode.FIRST ? DebounceMode.FIRST : DebounceMode.LAST,
            absorbed: Number(item.absorbed ?? 0),
          },
        }
      : {}),
    ...dependencyFields(item),
  };
}

/** The dependency attributes of an item, present only on tasks that have them. */
function dependencyFields(item: TaskItem): Partial<TaskRecord> {
  const ids = (v: unknown): string[] | undefined =>
    v instanceof Set || Array.isArray(v) ? [...(v as Iterable<unknown>)].map(String) : undefined;
  const parents = ids(item.parents);
  const releasedBy = ids(item.releasedBy);
  const dependents = ids(item.dependents);
  return {
    ...(parents === undefined ? {} : { parents }),
    ...(typeof item.waitingOn === 'number' ? { waitingOn: item.waitingOn } : {}),
    ...(item.onParentDead === 'run' ? { onParentDead: 'run' as const } : {}),
    ...(releasedBy === undefined ? {} : { releasedBy: releasedBy.sort() }),
    ...(dependents === undefined ? {} : { dependents: dependents.sort() }),
  };
}

/** ULID time components hold 48 bits. */
const MAX_ULID_TIME = 2 ** 48 - 1;

/** A sortable key of a task's enqueue order: its sequence, else a ULID-shaped creation time. */
function orderKey(record: Pick<TaskRecord, 'sequence' | 'createdAt'>): string {
  if (record.sequence !== undefined) return record.sequence;
  // A corrupt creation time sorts first rather than throwing out of a sweep's sort.
  const time = record.createdAt;
  const valid = Number.isInteger(time) && time >= 0 && time <= MAX_ULID_TIME;
  return `${encodeTime(valid ? time : 0, 10)}0000000000000000`;
}

/**
 * Orders tasks as they were enqueued, for re-sending them (the sweeper, redrive) without
 * breaking per-key order: by sequence, which creation times cannot do for a batch whose
 * records are written concurrently, then by id.
 */
export function compareEnqueueOrder(
  a: Pick<TaskRecord, 'sequence' | 'createdAt' | 'id'>,
  b: Pick<TaskRecord, 'sequence' | 'createdAt' | 'id'>,
): number {
  const ka = orderKey(a);
  const kb = orderKey(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
