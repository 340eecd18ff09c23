/**
 * The rows of the transition table that store a signal (docs/adr/0048-durable-sleep-signals-pause.md).
 * A signal is one transaction of the task's mark, which counts it (`signals`), and of its item,
 * keyed by the task, its step epoch and that count, so a run reads a task's signals in the
 * order they were stored, 100 known keys at a time; with a signal id, a third item reserves
 * the id, so a signal sent again is stored once. The mark is fenced by the count and the
 * epoch the sender read, so two signals never take one position, and, for a SUSPENDED task,
 * by whether it waits for this signal: then the mark also wakes it (due now, in the index).
 */
import { TableSchema, TaskStatus } from '../../core/constants.js';
import type { TaskRecord } from '../../core/record.js';
import type { TaskItem } from '../record.js';
import { and, counterIs, equals, fieldEquals, not, notExists, or, Update } from './expression.js';
import type { Write } from './row.js';

/** The statuses a signal is stored for without waking: every unfinished one but SUSPENDED. */
export const SIGNALLABLE: readonly TaskStatus[] = [
  TaskStatus.WAITING,
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  TaskStatus.RUNNING,
  TaskStatus.PAUSED,
];

type SignalInput = {
  seen: Pick<TaskRecord, 'id' | 'signals' | 'stepEpoch'>;
  name: string;
};

/** The task's step epoch is `epoch` (absent: 0). */
const epochIs = (epoch: number) => counterIs('stepEpoch', 'seenEpoch', epoch);

/** Still the count and epoch the sender read: no other signal took this position. */
const asCounted = ({ seen }: SignalInput) => [
  counterIs('signals', 'seenSignals', seen.signals ?? 0),
  epochIs(seen.stepEpoch ?? 0),
];

/** The task waits for the signal `name`. */
const waitsFor = (name: string) =>
  and(
    [fieldEquals('wait', 'k', 'waitKind', 'signal'), fieldEquals('wait', 'n', 'waitName', name)],
    true,
  );

const counted = ({ seen }: SignalInput) => new Update().set('signals', (seen.signals ?? 0) + 1);

/** An unfinished task, not SUSPENDED → the same, one more signal counted. */
export const signal: Write<SignalInput> = {
  kind: 'mark',
  name: 'count a signal of',
  from: SIGNALLABLE,
  fence: asCounted,
  request: (input) => ({ op: 'update', key: input.seen.id, update: counted(input).build() }),
  writes: ['signals'],
};

/**
 * SUSPENDED, waiting for this signal → the same, one more signal counted and woken: a claim
 * now takes it (`wokenAt`), and the status index files it as due now, so the sweeper wakes it
 * if the sender's own wake is lost.
 */
export const signalAndWake: Write<SignalInput> = {
  kind: 'mark',
  name: 'count a signal of, and wake,',
  from: [TaskStatus.SUSPENDED],
  fence: (input) => [...asCounted(input), waitsFor(input.name)],
  request: (input, now) => ({
    op: 'update',
    key: input.seen.id,
    update: counted(input).set('wokenAt', now).set(TableSchema.STATUS_INDEX_SORT_KEY, now).build(),
  }),
  writes: ['signals', 'wokenAt', TableSchema.STATUS_INDEX_SORT_KEY],
};

/** SUSPENDED, sleeping or waiting for another signal → the same, one more signal counted. */
export const signalSleeper: Write<SignalInput> = {
  kind: 'mark',
  name: 'count a signal of a sleeping',
  from: [TaskStatus.SUSPENDED],
  fence: (input) => [...asCounted(input), or([notExists('wait'), not(waitsFor(input.name))])],
  request: (input) => ({ op: 'update', key: input.seen.id, update: counted(input).build() }),
  writes: ['signals'],
};

/** A signal's item (or its id's reservation), written once: conditioned on its own absence. */
export const storeSignal: Write<{ item: TaskItem }> = {
  kind: 'item',
  name: 'store the signal of',
  fence: () => [notExists(TableSchema.PARTITION_KEY)],
  request: ({ item }) => ({ op: 'put', item }),
  writes: ['*'],
};

/** A signal's item (or reservation) deleted, if it is one of `taskId`'s (a purge, a restart). */
export const deleteSignal: Write<{ key: string; taskId: string }> = {
  kind: 'item',
  name: 'delete the signal of',
  fence: ({ taskId }) => [equals('taskId', 'taskId', taskId)],
  request: ({ key }) => ({ op: 'delete', key }),
  writes: ['*'],
  returnsOld: false,
};
