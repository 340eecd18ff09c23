/**
 * The rows of the transition table that pause and resume a task
 * (docs/adr/0048-durable-sleep-signals-pause.md). An operator pauses a task that waits (to
 * start, for its schedule, or suspended) in one write; a RUNNING task is asked, and its lease
 * holder ends the run PAUSED at its next step, checkpoint or heartbeat, without spending an
 * attempt (that end is the lease holder's row, in suspension.ts, so that a worker loads none
 * of the operator's rows). A resume puts the task back where it was: due, scheduled, or
 * suspended.
 */
import { AuditEvent, TaskStatus } from '../../core/constants.js';
import type { HistoryEntry, TaskRecord, TaskWait } from '../../core/record.js';
import { toStoredEntry } from '../history.js';
import { counterIs, equals, exists, generationIs, notExists, oneOf, Update } from './expression.js';
import { at, type SeenHistory, type Transition, type Write } from './row.js';
import { wakeDue } from './suspension.js';
import { keyedStates } from './writer.js';

/** The statuses `client.pause` moves to PAUSED in one write. */
export const PAUSABLE: readonly TaskStatus[] = [
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  TaskStatus.SUSPENDED,
];

type OperatorInput = {
  seen: Pick<TaskRecord, 'id' | 'type' | 'status' | 'attempt' | 'generation'> & SeenHistory;
  reason?: string | undefined;
  /** The operator who acted (docs/adr/0039-operator-audit.md). */
  principal?: string | undefined;
};

/** The fence of an operator's write: still the record read, in the status read. */
const asSeen = ({ seen }: OperatorInput) => [
  equals('status', 'seenStatus', seen.status),
  equals('attempt', 'seenAttempt', seen.attempt),
  generationIs('seenGeneration', seen.generation),
];

/**
 * SCHEDULED | PENDING | QUEUED | SUSPENDED → PAUSED, remembering where it was. Its message,
 * when it comes, is held (an ordering key's: the key stays held) or dropped (a task without a
 * key: the resume sends a new one). A pause request it no longer needs is cleared.
 */
export const pause: Transition<OperatorInput> = {
  kind: 'transition',
  name: 'pause',
  from: PAUSABLE,
  fence: asSeen,
  event: AuditEvent.PAUSED,
  to: TaskStatus.PAUSED,
  task: ({ seen }) => seen,
  by: ({ seen, principal }) => ({ attempt: seen.attempt, principal }),
  detail: ({ seen, reason }) => `${reason ?? 'paused'}; was ${seen.status}`,
  set: ({ seen }) => ({ pausedFrom: seen.status }),
  remove: ['pauseRequestedAt'],
  writes: ['pausedFrom', 'pauseRequestedAt'],
  statusAt: at,
};

/**
 * RUNNING, not yet asked → RUNNING with `pauseRequestedAt` and the request's entry, leaving
 * the status, the lease and the index alone: the lease holder sees it on its next write of
 * the lease (a step's beat, a checkpoint, a heartbeat) and ends the run PAUSED. Not fenced by
 * the lease: the request is for the task, whichever attempt holds it.
 */
export const requestPause: Write<{ id: string; entry: HistoryEntry }> = {
  kind: 'mark',
  name: 'request the pause of',
  from: [TaskStatus.RUNNING],
  fence: () => [notExists('pauseRequestedAt')],
  request: ({ id, entry }, now) => ({
    op: 'update',
    key: id,
    update: new Update()
      .set('pauseRequestedAt', now)
      .set('updatedAt', now)
      .append('history', [toStoredEntry(entry)])
      .build(),
    returns: 'ALL_NEW',
  }),
  writes: ['pauseRequestedAt', 'updatedAt', 'history'],
};

/**
 * RUNNING (or QUEUED or PENDING, after a retry or a requeue) with a pause request → the same
 * without it: a resume that came before the lease holder honoured the request takes it back,
 * with the resume's entry.
 */
export const withdrawPause: Write<{ id: string; entry: HistoryEntry }> = {
  kind: 'mark',
  name: 'withdraw the pause request of',
  from: [TaskStatus.RUNNING, TaskStatus.QUEUED, TaskStatus.PENDING],
  fence: () => [exists('pauseRequestedAt', 'pauseRequestedAt')],
  request: ({ id, entry }, now) => ({
    op: 'update',
    key: id,
    update: new Update()
      .remove('pauseRequestedAt')
      .set('updatedAt', now)
      .append('history', [toStoredEntry(entry)])
      .build(),
    returns: 'ALL_NEW',
  }),
  writes: ['pauseRequestedAt', 'updatedAt', 'history'],
};

/** The fence of a resume: the PAUSED record read, paused from one of `from`. */
const resumedFrom = (from: readonly TaskStatus[]) => (input: OperatorInput) => [
  equals('attempt', 'seenAttempt', input.seen.attempt),
  generationIs('seenGeneration', input.seen.generation),
  oneOf('pausedFrom', keyedStates(from)),
];

/** The columns every resume shares. */
const resumeColumns = {
  kind: 'transition',
  from: [TaskStatus.PAUSED],
  event: AuditEvent.RESUMED,
  task: ({ seen }: OperatorInput) => seen,
  by: ({ seen, principal }: OperatorInput) => ({ attempt: seen.attempt, principal }),
  detail: ({ reason }: OperatorInput) => reason ?? 'resumed',
} as const;

/**
 * PAUSED (from PENDING or QUEUED, or from a RUNNING task's run) → PENDING under a new
 * generation: due at once. Its held message, if a worker keeps one, is made visible by the
 * caller; without one, the caller sends the new generation's message (a task without a key),
 * or the sweeper does after its grace (a key's task, whose message is still at the head of its
 * group when it was never received).
 */
export const resume: Transition<OperatorInput> = {
  ...resumeColumns,
  name: 'resume',
  fence: resumedFrom([TaskStatus.PENDING, TaskStatus.QUEUED]),
  to: TaskStatus.PENDING,
  set: ({ seen }) => ({ generation: seen.generation + 1 }),
  remove: ['pausedFrom'],
  writes: ['generation', 'pausedFrom'],
  statusAt: at,
};

/**
 * PAUSED (from SCHEDULED) → SCHEDULED, indexed by its `runAt` again: the caller makes sure of
 * its schedule, or sends it when it is due (as the sweeper repairs any SCHEDULED task).
 */
export const resumeScheduled: Transition<OperatorInput & { runAt: number }> = {
  ...resumeColumns,
  name: 'resume scheduled',
  fence: resumedFrom([TaskStatus.SCHEDULED]),
  to: TaskStatus.SCHEDULED,
  remove: ['pausedFrom'],
  writes: ['pausedFrom'],
  statusAt: ({ runAt }) => runAt,
};

/**
 * PAUSED (from SUSPENDED) → SUSPENDED under a new generation, still waiting for what it waited
 * for; `woken` when a signal came while it was paused (it may be the one awaited), so it is
 * due at once. The caller then wakes it, or lets its held message (or a new one) wait.
 * `woken` is decided from the task's signal head (docs/adr/0066-signal-head-off-the-task-item.md),
 * which this write cannot fence (a sender's head is an item of its own): a signal counted
 * after that read is found by the resume's second read of the head, after this write, which
 * then wakes the task (`note the signal wake of`). Fenced by the count an earlier version
 * kept on the record (`signals`), as read.
 */
export const resumeSuspended: Transition<
  OperatorInput & { wait: TaskWait; woken: boolean; signals: number }
> = {
  ...resumeColumns,
  name: 'resume suspended',
  fence: (input) => [
    ...resumedFrom([TaskStatus.SUSPENDED])(input),
    counterIs('signals', 'seenSignals', input.signals),
  ],
  to: TaskStatus.SUSPENDED,
  set: ({ seen, woken }, now) => ({
    generation: seen.generation + 1,
    wokenAt: woken ? now : undefined,
  }),
  remove: ['pausedFrom'],
  writes: ['generation', 'wokenAt', 'pausedFrom'],
  statusAt: ({ wait, woken }, now) => (woken ? now : wakeDue(wait)),
};
