/**
 * The rows of the transition table that suspend a durable task and keep it suspended
 * (docs/adr/0048-durable-sleep-signals-pause.md): the lease holder's suspension, when its
 * handler sleeps or waits for a signal; the note of the message a worker keeps in flight for a
 * SUSPENDED or PAUSED task (its place at the head of its group); the sweeper's note of a
 * wake it repaired; and the lease holder's end of a run it was asked to pause (the operator's
 * pause and resume rows are in pausing.ts, which a worker does not load).
 */
import { AuditEvent, TableSchema, TaskStatus } from '../../core/constants.js';
import type { HeldMessage, TaskRecord, TaskWait } from '../../core/record.js';
import { heldItem, waitItem } from '../record.js';
import {
  compare,
  counterIs,
  equals,
  exists,
  fieldEquals,
  generationIs,
  notExists,
  or,
  Update,
} from './expression.js';
import { byLease } from './lifecycle.js';
import { at, LEASE, type Lease, type Transition, type Write } from './row.js';

/**
 * The status index's sort key of a SUSPENDED task whose wait has no timer: the latest time a
 * JavaScript date holds, so the sweeper's query for overdue wakes never meets it.
 */
export const NEVER = 8_640_000_000_000_000;

/** When a suspended task is due, as the status index sorts it: its timer, or never. */
export function wakeDue(wait: Pick<TaskWait, 'until'>): number {
  return wait.until ?? NEVER;
}

/**
 * How a suspension keeps the task's message: `held` in flight (a worker hides it until the
 * timer, 12 hours at a time), or released (acknowledged): its wake is then a new message
 * under `generation`, one more than before, so that SQS does not take it for a duplicate.
 */
export interface MessageKeeping {
  readonly held?: HeldMessage | undefined;
  readonly generation?: number | undefined;
}

/** The attributes a suspension sets: the wait, its timer and the signals seen, and the message's keeping. */
export function waitSet(
  wait: TaskWait | undefined,
  keeping: MessageKeeping,
): Record<string, unknown> {
  return {
    ...(wait === undefined
      ? {}
      : {
          wait: waitItem(wait),
          wakeAt: wait.until,
          waitSignals: wait.kind === 'signal' ? (wait.signalsSeen ?? 0) : undefined,
        }),
    held: keeping.held === undefined ? undefined : heldItem(keeping.held),
    generation: keeping.generation,
  };
}

/** What a suspension writes besides the lease and progress. */
export const WAIT_WRITES = ['wait', 'wakeAt', 'waitSignals', 'held', 'generation'] as const;

type SuspendInput = MessageKeeping & {
  lease: Lease;
  wait: TaskWait;
  progressJson?: string | undefined;
};

const describeWait = (wait: TaskWait): string => {
  const until = wait.until === undefined ? '' : ` until ${new Date(wait.until).toISOString()}`;
  return wait.kind === 'sleep'
    ? `sleeping${until} (step ${wait.step} ${JSON.stringify(wait.name)})`
    : `waiting for signal ${JSON.stringify(wait.name)}${wait.until === undefined ? '' : `, at most${until}`} (step ${wait.step})`;
};

/**
 * RUNNING → SUSPENDED by the lease holder whose handler called `ctx.sleep` or
 * `ctx.waitForSignal`: the slice ends without spending an attempt (the attempt goes back to
 * the one before the claim, as a continuation's does), and the record keeps what it waits
 * for. Refused while a cancel or pause request is pending (the holder ends the run as asked
 * instead) and, for a signal wait, when a signal arrived since the holder looked
 * (`signalsSeen`): the holder then reads it rather than sleeping past it.
 */
export const suspend: Transition<SuspendInput> = {
  kind: 'transition',
  ...byLease<SuspendInput>(),
  fence: (input) => [
    ...byLease<SuspendInput>().fence(input),
    notExists('cancelRequestedAt'),
    notExists('pauseRequestedAt'),
    // Only an earlier version's sender counts on the record (ADR 0066): its count, if any,
    // must not have passed the one the holder read; a later signal is found by the holder's
    // read of the head after this write.
    ...(input.wait.kind === 'signal'
      ? [
          or([
            notExists('signals'),
            compare('signals', '<=', 'signalsSeen', input.wait.signalsSeen ?? 0),
          ]),
        ]
      : []),
  ],
  name: 'suspend',
  event: AuditEvent.SUSPENDED,
  to: TaskStatus.SUSPENDED,
  detail: ({ lease, wait, held }) =>
    `${describeWait(wait)}; attempt ${lease.attempt} not spent${held === undefined ? '' : '; message kept'}`,
  set: ({ lease, wait, progressJson, ...keeping }, now) => ({
    attempt: lease.attempt - 1,
    ...waitSet(wait, keeping),
    progress: progressJson,
    progressAt: progressJson === undefined ? undefined : now,
  }),
  remove: LEASE,
  drop: ({ wait }) => (wait.until === undefined ? ['wakeAt'] : []),
  writes: ['attempt', ...WAIT_WRITES, 'progress', 'progressAt', ...LEASE],
  statusAt: ({ wait }) => wakeDue(wait),
};

/**
 * SUSPENDED | PAUSED → the same, with the message a worker now keeps in flight for it: its
 * receipt handle, so that a signal or a resume can make it visible at once. Pinned to the
 * record the worker saw (its generation and attempt), so a task that moved on meanwhile (woken,
 * resumed, cancelled) is not written, and the worker shows the message again.
 */
export const noteHold: Write<{
  seen: Pick<TaskRecord, 'id' | 'status' | 'generation' | 'attempt'>;
  held: HeldMessage;
}> = {
  kind: 'mark',
  name: 'note the held message of',
  from: [TaskStatus.SUSPENDED, TaskStatus.PAUSED],
  fence: ({ seen }) => [
    equals('status', 'seenStatus', seen.status),
    generationIs('seenGeneration', seen.generation),
    equals('attempt', 'seenAttempt', seen.attempt),
    notExists('wokenAt'),
  ],
  request: ({ seen, held }) => ({
    op: 'update',
    key: seen.id,
    update: new Update().set('held', heldItem(held)).build(),
  }),
  writes: ['held'],
  returnsOld: false,
};

/**
 * SUSPENDED (due, not yet claimed) → the same, under the next generation, due again at
 * `nextAt` in the status index: the sweeper wakes it (its wake was lost) with a new message of
 * that generation (so SQS never drops it as a duplicate of the lost one) and notes so, so that
 * the next sweep does not wake it again at once. Pinned to the generation seen.
 */
export const noteWake: Write<{
  seen: Pick<TaskRecord, 'id' | 'generation'>;
  nextAt: number;
}> = {
  kind: 'mark',
  name: 'note the wake of',
  from: [TaskStatus.SUSPENDED],
  fence: ({ seen }) => [generationIs('seenGeneration', seen.generation)],
  request: ({ seen, nextAt }) => ({
    op: 'update',
    key: seen.id,
    update: new Update()
      .set('generation', seen.generation + 1)
      .set(TableSchema.STATUS_INDEX_SORT_KEY, nextAt)
      .build(),
  }),
  writes: ['generation', TableSchema.STATUS_INDEX_SORT_KEY],
  returnsOld: false,
};

/**
 * SUSPENDED, waiting for a signal, not woken → the same, woken (`wokenAt`; due at `nextAt` in
 * the status index), by a worker whose claim was refused, a worker that suspended past a signal,
 * a resume or the sweeper, each having read the task's signal head and found a signal after
 * the wait's position (docs/adr/0066-signal-head-off-the-task-item.md): a sender no longer
 * writes the task's item. Pinned to the generation and the wait's signal count seen.
 */
export const noteSignalWake: Write<{
  seen: Pick<TaskRecord, 'id' | 'generation' | 'wait'>;
  nextAt: number;
}> = {
  kind: 'mark',
  name: 'note the signal wake of',
  from: [TaskStatus.SUSPENDED],
  fence: ({ seen }) => [
    generationIs('seenGeneration', seen.generation),
    fieldEquals('wait', 'k', 'waitKind', 'signal'),
    counterIs('waitSignals', 'waitSignals', seen.wait?.signalsSeen ?? 0),
    notExists('wokenAt'),
  ],
  request: ({ seen, nextAt }, now) => ({
    op: 'update',
    key: seen.id,
    update: new Update().set('wokenAt', now).set(TableSchema.STATUS_INDEX_SORT_KEY, nextAt).build(),
    returns: 'ALL_NEW',
  }),
  writes: ['wokenAt', TableSchema.STATUS_INDEX_SORT_KEY],
};

type PauseRunningInput = MessageKeeping & {
  lease: Lease;
  /** What the run was about to wait for when it ended: it resumes SUSPENDED. */
  wait?: TaskWait | undefined;
  detail: string;
  progressJson?: string | undefined;
};

/**
 * RUNNING with a pause request → PAUSED, by the lease holder that saw it: the run ends as a
 * continuation does (no attempt spent), and the task resumes QUEUED, or SUSPENDED with `wait`
 * when the run was about to sleep or wait.
 */
export const pauseRunning: Transition<PauseRunningInput> = {
  kind: 'transition',
  ...byLease<PauseRunningInput>(),
  fence: (input) => [
    ...byLease<PauseRunningInput>().fence(input),
    exists('pauseRequestedAt', 'pauseRequestedAt'),
  ],
  name: 'end as paused',
  event: AuditEvent.PAUSED,
  to: TaskStatus.PAUSED,
  detail: ({ detail, lease }) => `${detail}; attempt ${lease.attempt} not spent`,
  set: ({ lease, wait, progressJson, ...keeping }, now) => ({
    attempt: lease.attempt - 1,
    pausedFrom: wait === undefined ? TaskStatus.QUEUED : TaskStatus.SUSPENDED,
    ...waitSet(wait, keeping),
    progress: progressJson,
    progressAt: progressJson === undefined ? undefined : now,
  }),
  remove: [...LEASE, 'pauseRequestedAt'],
  drop: ({ wait }) => (wait !== undefined && wait.until === undefined ? ['wakeAt'] : []),
  writes: [
    'attempt',
    'pausedFrom',
    ...WAIT_WRITES,
    'progress',
    'progressAt',
    'pauseRequestedAt',
    ...LEASE,
  ],
  statusAt: at,
};
