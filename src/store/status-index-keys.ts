/**
 * The sparse status index (docs/adr/0021-sparse-status-index.md): which statuses carry its
 * keys, what it projects, and how many shards each keyed status is spread over.
 */

import { Defaults, TableSchema, TaskStatus } from '../core/constants.js';
import { ValidationError } from '../core/errors.js';
import { EnvVars } from '../settings/location.js';
import { statusShard, statusShardKey } from './record.js';
import { beginsWith, type Condition, not } from './transitions/expression.js';

/**
 * The statuses whose records carry the status index's keys: those in which nothing else may
 * find the task (docs/adr/0052-running-and-queued-leave-the-index.md). A status is keyed when,
 * while a task is in it, the task may have no message in a work queue and something must still
 * act on it: WAITING (released by its last parent, and listed by operators), SCHEDULED (its
 * schedule may be missing), PENDING (its message may never have been sent: the outbox) and
 * DEAD (listed, redriven and purged by operators).
 *
 * RUNNING and QUEUED are not keyed: a task enters them only from a message (the claim, a
 * retry, a continuation, a redrive of a parked task whose held message resumes), which stays
 * in the queue until the task leaves them, so the message finds it again: the claim takes
 * over an expired lease, a retry's message comes back when due. A message that leaves the
 * queue without its task finishing is found where it went: the sweeper reads the dead-letter
 * queues; and `TaskClient.recoverLost` scans the table for what a purge or an expiry of the
 * queue removed. Finished tasks (SUCCEEDED, CANCELLED, ROLLED_BACK) are the bulk of a table
 * and are not keyed either.
 *
 * A new status chooses by the same question: can a task be in it with no message that will
 * bring it back (a suspended task whose wake is a schedule or a signal's write, a paused one
 * waiting for an operator)? Then it is keyed, with `statusAt` the time its repair is due, and
 * the sweeper reads its partitions. If a message always carries it, it is not, and only a
 * lost message (dead-letter queue, recovery scan) needs handling.
 */
export const INDEXED_STATUSES: readonly TaskStatus[] = [
  TaskStatus.WAITING,
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.SUSPENDED,
  TaskStatus.PAUSED,
  TaskStatus.DEAD,
];

/**
 * Statuses whose records carry the index's keys only sometimes, so the sweeper still reads
 * their partitions: RUNNING and QUEUED records an older version keyed (before ADR 0052),
 * which empty as those tasks move on, and a QUEUED task whose message may not last until it
 * is due ({@link mayOutliveItsMessage}), keyed by its due time for the overdue pass.
 */
export const FORMERLY_INDEXED_STATUSES: readonly TaskStatus[] = [
  TaskStatus.RUNNING,
  TaskStatus.QUEUED,
];

/**
 * SQS's shortest message retention (`MessageRetentionPeriod` of 60 s). A message lasts at
 * least this long after its first send whatever the queue's setting, which the worker may
 * not know (a queue the user made, or changed since).
 */
export const SHORTEST_RETENTION_MS = 60_000;

/**
 * How long after its message's first send a task moving into QUEUED may be due and still be
 * carried by that message alone: half of {@link SHORTEST_RETENTION_MS}. The other half is
 * for the time between the task being due and its message being received (a busy worker, a
 * backlog), the same share ADR 0010 leaves a retry horizon within a queue's retention.
 */
export const CARRIED_BY_MESSAGE_MS = SHORTEST_RETENTION_MS * Defaults.RETRY_HORIZON_SHARE;

/**
 * Whether a task moving into QUEUED, due at `dueAt` (its retry delay's end, or now), keeps
 * a QUEUED index entry sorted by `dueAt`: when the message it keeps was first sent at
 * `messageSentAt` more than {@link CARRIED_BY_MESSAGE_MS} before `dueAt`, or when that send
 * time is unknown. Such a message may be gone by the time it is received, on a queue whose
 * retention is shorter than the worker was told; the entry lets the sweeper's overdue pass
 * send the task again, as it did before ADR 0052. A task due sooner is carried by its
 * message alone and pays no index unit (docs/adr/0052-running-and-queued-leave-the-index.md).
 */
export function mayOutliveItsMessage(dueAt: number, messageSentAt: number | undefined): boolean {
  return messageSentAt === undefined || dueAt > messageSentAt + CARRIED_BY_MESSAGE_MS;
}

/**
 * The index partition (`RELEASE#<shard>`) of finished parents whose dependents are not all
 * released yet (docs/adr/0030-dependencies.md).
 */
export const RELEASE_PARTITION = 'RELEASE';

/**
 * The record is not in a release partition, whichever shard: its release, if it had one, is
 * done. A finished task leaves its end (a redrive, a revived id) only then, so a release never
 * acts on an outcome its parent no longer has (docs/adr/0031-dependency-fences.md).
 */
export function releaseDone(): Condition {
  return not(
    beginsWith(TableSchema.STATUS_INDEX_PARTITION_KEY, 'releasePartition', `${RELEASE_PARTITION}#`),
  );
}

/** True when a record in `status` carries the status index's keys. */
export function isIndexed(status: TaskStatus): boolean {
  return INDEXED_STATUSES.includes(status);
}

/** The index key attributes, both removed when a record leaves the keyed statuses. */
export const STATUS_INDEX_KEYS: readonly string[] = [
  TableSchema.STATUS_INDEX_PARTITION_KEY,
  TableSchema.STATUS_INDEX_SORT_KEY,
];

/**
 * The index keys of a record of `taskId` entering `status` at `statusAt`, or undefined. With
 * `keyed`, a status the index does not key gets them too (a QUEUED task whose message may
 * not last until it is due, {@link mayOutliveItsMessage}).
 */
export function statusIndexKeys(
  taskId: string,
  status: TaskStatus,
  statusAt: number,
  shards: number,
  keyed = false,
): Record<string, string | number> | undefined {
  if (!keyed && !isIndexed(status)) return undefined;
  return {
    [TableSchema.STATUS_INDEX_PARTITION_KEY]: statusShardKey(status, statusShard(taskId, shards)),
    [TableSchema.STATUS_INDEX_SORT_KEY]: statusAt,
  };
}

/**
 * Most shards per status. 256 shards carry about 128,000 tasks/s (docs/status-index.md);
 * every operator read queries each shard, so more would only make reads slower.
 */
export const MAX_STATUS_SHARDS = 256;

/** The problem with a shard count, or undefined when it is an integer from 1 to the maximum. */
export function statusShardsIssue(value: unknown): string | undefined {
  const valid =
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= 1 &&
    value <= MAX_STATUS_SHARDS;
  return valid
    ? undefined
    : expectedShards(typeof value === 'number' ? String(value) : JSON.stringify(value));
}

function expectedShards(received: string): string {
  return `expected an integer from 1 to ${MAX_STATUS_SHARDS}, received ${received}`;
}

/**
 * The status shard count: `value` if given, else the `TASKLANE_STATUS_SHARDS` environment
 * variable, else `Defaults.STATUS_SHARDS`. Producers, workers and the sweeper must agree on
 * it (docs/status-index.md says how to change it on a live table).
 *
 * @throws ValidationError for anything but an integer from 1 to {@link MAX_STATUS_SHARDS}.
 */
export function resolveStatusShards(
  value: number | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): number {
  if (value !== undefined) {
    const issue = statusShardsIssue(value);
    if (issue === undefined) return value;
    throw new ValidationError('status index settings', [{ path: 'statusShards', message: issue }]);
  }
  const raw = env[EnvVars.STATUS_SHARDS]?.trim();
  if (raw === undefined || raw === '') return Defaults.STATUS_SHARDS;
  const shards = Number(raw);
  if (statusShardsIssue(shards) === undefined) return shards;
  throw new ValidationError('status index settings', [
    { path: EnvVars.STATUS_SHARDS, message: expectedShards(JSON.stringify(raw)) },
  ]);
}
