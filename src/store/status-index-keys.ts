/**
 * The sparse status index (docs/adr/0021-sparse-status-index.md): which statuses carry its
 * keys, what it projects, and how many shards each keyed status is spread over.
 */

import { Defaults, isTerminal, TableSchema, TaskStatus } from '../core/constants.js';
import { ValidationError } from '../core/errors.js';
import { EnvVars } from '../settings/location.js';
import { statusShard, statusShardKey } from './record.js';
import { beginsWith, type Condition, not } from './transitions/expression.js';

/**
 * The statuses whose records carry the status index's keys: every status something still
 * acts on. Operators list WAITING tasks (docs/adr/0030-dependencies.md); the sweeper repairs
 * PENDING (unsent), QUEUED (message outlived) and SCHEDULED (schedule missing) tasks, and
 * wakes again a SUSPENDED task whose wake was lost (docs/adr/0048-durable-sleep-signals-pause.md);
 * operators list PAUSED tasks and resume them, and list, redrive and purge DEAD ones.
 * Finished tasks (SUCCEEDED, CANCELLED, ROLLED_BACK) are the bulk of a table and are left
 * out: a transition into one of them removes the keys in its one write. RUNNING is left out
 * too (docs/adr/0052-running-leaves-the-status-index.md): the claim removes the keys, so a
 * claim costs one index unit instead of two and a heartbeat none; a lost RUNNING task is
 * found by its message's return, by the sweeper's dead-letter pass, or by its opt-in running
 * scan. A retry whose message outlives its delay by a day leaves its QUEUED task out too,
 * though QUEUED is keyed (the row's `offIndex`, docs/adr/0068-a-retry-stays-off-the-index.md).
 * A feature that adds a status the sweeper must find adds it here.
 */
export const INDEXED_STATUSES: readonly TaskStatus[] = [
  TaskStatus.WAITING,
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  TaskStatus.SUSPENDED,
  TaskStatus.PAUSED,
  TaskStatus.DEAD,
];

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

/**
 * The index partition (`WAKE#<shard>`) of signal heads that may have a waiter to wake: a
 * sender files its task's head there with each signal, sorted by the signal's time, and the
 * sweeper unfiles it once nothing is left to wake
 * (docs/adr/0066-signal-head-off-the-task-item.md).
 */
export const SIGNAL_WAKE_PARTITION = 'WAKE';

/** The wake partition's key in shard `shard`. */
export function signalWakeKey(shard: number): string {
  return `${SIGNAL_WAKE_PARTITION}#${shard}`;
}

/** True when a record in `status` carries the status index's keys. */
export function isIndexed(status: TaskStatus): boolean {
  return INDEXED_STATUSES.includes(status);
}

/**
 * Whether a move into `status` is filed by whether the task has dependents: into a finished
 * status the index does not key (docs/adr/0030-dependencies.md). A live unkeyed status
 * (RUNNING) just leaves the index.
 */
export function filesForRelease(status: TaskStatus): boolean {
  return !isIndexed(status) && isTerminal(status);
}

/** The index key attributes, both removed when a record leaves the keyed statuses. */
export const STATUS_INDEX_KEYS: readonly string[] = [
  TableSchema.STATUS_INDEX_PARTITION_KEY,
  TableSchema.STATUS_INDEX_SORT_KEY,
];

/** The index keys of a record of `taskId` entering `status` at `statusAt`, or undefined. */
export function statusIndexKeys(
  taskId: string,
  status: TaskStatus,
  statusAt: number,
  shards: number,
): Record<string, string | number> | undefined {
  if (!isIndexed(status)) return undefined;
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
