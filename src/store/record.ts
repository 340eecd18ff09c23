import { createHash } from 'node:crypto';
import { encodeTime } from 'ulid';
import { toObjectRef } from '../claim-check/object-ref.js';
import {
  DebounceMode,
  isTerminal,
  OnDead,
  TableSchema,
  type TaskStatus,
} from '../core/constants.js';
import { messageGroupOf } from '../core/message.js';
import type { TaskErrorInfo, TaskRecord } from '../core/record.js';
import { payloadHash } from './canonical-json.js';
import {
  fromStoredEntry,
  inheritWorkers,
  latestClaimWorker,
  mergeProducerHistory,
  PRODUCER_HISTORY,
} from './history.js';

export { canonicalJson, MAX_PAYLOAD_DEPTH, payloadHash } from './canonical-json.js';

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
  const stored = Array.isArray(item.history)
    ? inheritWorkers(item.history.map((entry) => fromStoredEntry(entry, createdAt)))
    : [];
  // The producer's cancel, cancel request and rollback keep their entries apart (ADR 0039).
  const history = mergeProducerHistory(stored, item[PRODUCER_HISTORY], createdAt);
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
    // Read as stored; the worker checks it where it links to it, and logs a bad one's reason.
    ...(typeof item.traceparent === 'string' ? { traceparent: item.traceparent } : {}),
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
    ...durableFields(item),
  };
}

/** The durable-task attributes of an item, present only on tasks that have them. */
function durableFields(item: TaskItem): Partial<TaskRecord> {
  // One attribute holds either: the JSON text, or the payload bucket's reference.
  const checkpointRef = toObjectRef(item.checkpoint);
  return {
    ...(typeof item.checkpoint === 'string' ? { checkpoint: parseJson(item.checkpoint) } : {}),
    ...(checkpointRef === undefined ? {} : { checkpointRef }),
    ...(typeof item.checkpointAt === 'number' ? { checkpointAt: item.checkpointAt } : {}),
    ...(typeof item.continuations === 'number' ? { continuations: item.continuations } : {}),
    ...(item.ranUnspent === true ? { ranUnspent: true } : {}),
    ...(item.unclaimed === true ? { unclaimed: true } : {}),
    ...(typeof item.stepEpoch === 'number' ? { stepEpoch: item.stepEpoch } : {}),
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
