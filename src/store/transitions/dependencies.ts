/**
 * The rows of the transition table of task dependencies (docs/adr/0030-dependencies.md): the
 * parent's new dependent, the child's counted parent and the end of its wait, and the parent's
 * release partition left once every dependent counted it. The writes on a child are fenced by
 * the parent whose outcome they count: that parent must not be counted already
 * (`releasedBy`), so a release retried after a crash, or by the sweeper beside a worker,
 * lands at most once.
 */
import { AuditEvent, Defaults, TableSchema, TaskStatus } from '../../core/constants.js';
import type { TaskRecord } from '../../core/record.js';
import { statusShard, statusShardKey } from '../record.js';
import { isIndexed, RELEASE_PARTITION } from '../status-index-keys.js';
import {
  beginsWith,
  type Condition,
  contains,
  equals,
  not,
  notExists,
  or,
  sizeOf,
  Update,
} from './expression.js';
import { at, FINISHED, finished, type SeenHistory, type Transition, type Write } from './row.js';

/** What a release names: the child as read, and the finished parent it counts. */
export type ReleaseInput = {
  seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'> & SeenHistory;
  parent: Pick<TaskRecord, 'id' | 'status'>;
  detail: string;
};

/** The parent has not been counted by this child yet. */
export function notCounted(parentId: string): Condition {
  return not(contains('releasedBy', 'parentId', parentId));
}

/**
 * WAITING → PENDING: the last uncounted parent finished. Fenced by `waitingOn = 1`, so it
 * lands only when every other parent has been counted; the task is then sent like any
 * PENDING task (and the sweeper re-sends it if that send is lost).
 */
export const releaseWaiting: Transition<ReleaseInput> = {
  kind: 'transition',
  name: 'release',
  from: [TaskStatus.WAITING],
  fence: ({ parent }) => [equals('waitingOn', 'lastOne', 1), notCounted(parent.id)],
  event: AuditEvent.RELEASED,
  to: TaskStatus.PENDING,
  task: ({ seen }) => seen,
  by: ({ seen }) => ({ attempt: seen.attempt }),
  detail: ({ detail }) => detail,
  set: () => ({ waitingOn: 0 }),
  writes: ['waitingOn'],
  statusAt: at,
};

/**
 * WAITING → CANCELLED: a parent ended DEAD or CANCELLED and the task's `onParentDead` is
 * `cancel`. Its own dependents are then released in turn, as for any cancelled task.
 */
export const cancelWaiting: Transition<ReleaseInput> = {
  kind: 'transition',
  name: 'cancel for its parent',
  from: [TaskStatus.WAITING],
  fence: ({ parent }) => [notCounted(parent.id)],
  event: AuditEvent.CANCELLED,
  to: TaskStatus.CANCELLED,
  task: ({ seen }) => seen,
  by: ({ seen }) => ({ attempt: seen.attempt }),
  detail: ({ detail }) => detail,
  set: finished,
  writes: FINISHED,
  statusAt: at,
};

/** Statuses a parent can still leave: a dependent added now is released by its end. */
export const UNFINISHED: readonly TaskStatus[] = [
  TaskStatus.WAITING,
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  TaskStatus.RUNNING,
  // Sleeping, waiting for a signal, or paused: still to finish (ADR 0048).
  TaskStatus.SUSPENDED,
  TaskStatus.PAUSED,
];

/** The finished statuses, which a release files back or out of the index. */
const FINISHED_STATUSES: readonly TaskStatus[] = [
  TaskStatus.SUCCEEDED,
  TaskStatus.DEAD,
  TaskStatus.CANCELLED,
  TaskStatus.ROLLED_BACK,
];

/**
 * WAITING → WAITING with one more parent counted: `waitingOn` - 1 and the parent added to
 * `releasedBy`, under `waitingOn` still being what was read and the parent not yet counted.
 * The history is unchanged.
 */
export const countParent: Write<{
  seen: Pick<TaskRecord, 'id' | 'waitingOn'>;
  parentId: string;
}> = {
  kind: 'mark',
  name: 'count a parent of',
  from: [TaskStatus.WAITING],
  fence: ({ seen, parentId }) => [
    equals('waitingOn', 'seenWaitingOn', seen.waitingOn ?? 0),
    notCounted(parentId),
  ],
  request: ({ seen, parentId }, now) => ({
    op: 'update',
    key: seen.id,
    update: new Update()
      .add('releasedBy', new Set([parentId]))
      .add('waitingOn', -1)
      .set('updatedAt', now)
      .build(),
    returns: 'ALL_NEW',
  }),
  writes: ['releasedBy', 'waitingOn', 'updatedAt'],
};

/**
 * (unfinished) → the same, with `childId` among its `dependents` and its release partition
 * (`releaseShard`) chosen, while it has room: one item of the dependent's creating
 * transaction (docs/adr/0030-dependencies.md). Refused, it returns the parent as it is.
 */
export const addDependent: Write<{ parentId: string; childId: string }> = {
  kind: 'mark',
  name: 'add a dependent to',
  from: UNFINISHED,
  fence: () => [
    or([
      notExists('dependents'),
      sizeOf('dependents', '<', 'maxDependents', Defaults.MAX_DEPENDENTS),
    ]),
  ],
  request: ({ parentId, childId }, _now, { statusShards }) => ({
    op: 'update',
    key: parentId,
    update: new Update()
      .add('dependents', new Set([childId]))
      .set('releaseShard', `${RELEASE_PARTITION}#${statusShard(parentId, statusShards)}`)
      .build(),
  }),
  writes: ['dependents', 'releaseShard'],
};

/**
 * (finished, in a release partition) → the same, filed back under its status's index
 * partition (DEAD), or out of the index (SUCCEEDED, CANCELLED, ROLLED_BACK): every dependent
 * has counted its outcome. Conditional on it still being finished in the status the caller
 * saw and in a release partition, whichever shard: the producer that registered the first
 * dependent chose it with its own `statusShards`, which may be lower than this writer's
 * during a rolling raise (docs/adr/0031-dependency-fences.md).
 */
export const finishRelease: Write<{ parent: Pick<TaskRecord, 'id' | 'status'> }> = {
  kind: 'mark',
  name: 'finish the release of',
  from: FINISHED_STATUSES,
  fence: ({ parent }) => [
    equals('status', 'seenStatus', parent.status),
    beginsWith(TableSchema.STATUS_INDEX_PARTITION_KEY, 'release', `${RELEASE_PARTITION}#`),
  ],
  request: ({ parent }, _now, { statusShards }) => {
    // A finished status the index does not key leaves it (docs/adr/0021-sparse-status-index.md).
    const update = isIndexed(parent.status)
      ? new Update().set(
          TableSchema.STATUS_INDEX_PARTITION_KEY,
          statusShardKey(parent.status, statusShard(parent.id, statusShards)),
        )
      : new Update()
          .remove(TableSchema.STATUS_INDEX_PARTITION_KEY)
          .remove(TableSchema.STATUS_INDEX_SORT_KEY);
    return { op: 'update', key: parent.id, update: update.build() };
  },
  writes: [TableSchema.STATUS_INDEX_PARTITION_KEY, TableSchema.STATUS_INDEX_SORT_KEY],
  returnsOld: false,
};
