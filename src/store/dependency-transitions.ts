/**
 * The rows of the transition table that end a WAITING task's wait (docs/adr/0030-dependencies.md).
 * Each is one conditional write on the child's own item, fenced by the parent whose outcome
 * it counts: that parent must not be counted already (`releasedBy`), so a release retried
 * after a crash, or by the sweeper beside a worker, lands at most once.
 */
import { AuditEvent, TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import { type Condition, equals } from './expression.js';
import type { SeenHistory } from './transition.js';
import { at, finished, type Transition } from './transitions.js';

/** What a release names: the child as read, and the finished parent it counts. */
export type ReleaseInput = {
  seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'> & SeenHistory;
  parent: Pick<TaskRecord, 'id' | 'status'>;
  detail: string;
};

/** The parent has not been counted by this child yet. */
export function notCounted(parentId: string): Condition {
  return {
    expression: 'NOT contains(#releasedBy, :parentId)',
    names: { '#releasedBy': 'releasedBy' },
    values: { ':parentId': parentId },
  };
}

/**
 * WAITING → PENDING: the last uncounted parent finished. Fenced by `waitingOn = 1`, so it
 * lands only when every other parent has been counted; the task is then sent like any
 * PENDING task (and the sweeper re-sends it if that send is lost).
 */
export const releaseWaiting: Transition<ReleaseInput> = {
  name: 'release',
  from: [TaskStatus.WAITING],
  fence: ({ parent }) => [equals('waitingOn', 'lastOne', 1), notCounted(parent.id)],
  event: AuditEvent.RELEASED,
  to: TaskStatus.PENDING,
  task: ({ seen }) => seen,
  by: ({ seen }) => ({ attempt: seen.attempt }),
  detail: ({ detail }) => detail,
  set: () => ({ waitingOn: 0 }),
  statusAt: at,
};

/**
 * WAITING → CANCELLED: a parent ended DEAD or CANCELLED and the task's `onParentDead` is
 * `cancel`. Its own dependents are then released in turn, as for any cancelled task.
 */
export const cancelWaiting: Transition<ReleaseInput> = {
  name: 'cancel for its parent',
  from: [TaskStatus.WAITING],
  fence: ({ parent }) => [notCounted(parent.id)],
  event: AuditEvent.CANCELLED,
  to: TaskStatus.CANCELLED,
  task: ({ seen }) => seen,
  by: ({ seen }) => ({ attempt: seen.attempt }),
  detail: ({ detail }) => detail,
  set: finished,
  statusAt: at,
};
