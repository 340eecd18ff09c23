/**
 * The rows of the transition table that store a signal (docs/adr/0048-durable-sleep-signals-pause.md,
 * docs/adr/0066-signal-head-off-the-task-item.md). A signal is one transaction of:
 * - a ConditionCheck of the task's item, which writes nothing: the task is unfinished, in the
 *   state the sender read (SUSPENDED waiting for this signal, SUSPENDED otherwise, or another
 *   unfinished status), in the step epoch it read, the task it read (`createdAt`), and an
 *   earlier version's count on the record (`signals`) unchanged;
 * - the Update of the task's signal head (`signal <task id> head`), which counts it, fenced by
 *   the epoch and count the sender read, so two signals never take one position; it also files
 *   the head in the sweeper's wake partition, so a waiter whose wake is lost is found;
 * - the Put of its item, keyed by the task, its step epoch and its position, so a run reads a
 *   task's signals in the order they were stored, 100 known keys at a time;
 * - with a signal id, the Put of an item reserving the id, so a signal sent again is stored once.
 * Nothing of it writes the task's item: a sender's grant may write `signal …` items only.
 */
import { TableSchema, TaskStatus } from '../../core/constants.js';
import type { TaskRecord } from '../../core/record.js';
import type { TaskItem } from '../record.js';
import { statusShard } from '../record.js';
import { signalWakeKey } from '../status-index-keys.js';
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

type CheckInput = {
  seen: Pick<TaskRecord, 'id' | 'signals' | 'stepEpoch' | 'createdAt'>;
  name: string;
};

/** The task is the one, in the epoch, the sender read; an earlier version's count unchanged. */
const asRead = ({ seen }: CheckInput) => [
  counterIs('stepEpoch', 'seenEpoch', seen.stepEpoch ?? 0),
  equals('createdAt', 'seenCreatedAt', seen.createdAt),
  counterIs('signals', 'seenSignals', seen.signals ?? 0),
];

/** The task waits for the signal `name`. */
const waitsFor = (name: string) =>
  and(
    [fieldEquals('wait', 'k', 'waitKind', 'signal'), fieldEquals('wait', 'n', 'waitName', name)],
    true,
  );

/** An unfinished task, not SUSPENDED, as read: checked, nothing written. */
export const checkSignalled: Write<CheckInput> = {
  kind: 'mark',
  name: 'check the signalled task',
  from: SIGNALLABLE,
  fence: asRead,
  request: ({ seen }) => ({ op: 'check', key: seen.id }),
  writes: [],
};

/** SUSPENDED, waiting for this signal, as read: checked; the sender then wakes it. */
export const checkSignalWaiter: Write<CheckInput> = {
  kind: 'mark',
  name: 'check the signalled waiter',
  from: [TaskStatus.SUSPENDED],
  fence: (input) => [...asRead(input), waitsFor(input.name)],
  request: ({ seen }) => ({ op: 'check', key: seen.id }),
  writes: [],
};

/** SUSPENDED, sleeping or waiting for another signal, as read: checked. */
export const checkSignalSleeper: Write<CheckInput> = {
  kind: 'mark',
  name: 'check the signalled sleeper',
  from: [TaskStatus.SUSPENDED],
  fence: (input) => [...asRead(input), or([notExists('wait'), not(waitsFor(input.name))])],
  request: ({ seen }) => ({ op: 'check', key: seen.id }),
  writes: [],
};

/** What the head's update needs: the head as read, and the count it moves to. */
export type CountInput = {
  key: string;
  task: Pick<TaskRecord, 'id' | 'createdAt'>;
  /** The head as the sender read it (epoch and count), or undefined for none. */
  seen: { readonly epoch: number; readonly count: number } | undefined;
  epoch: number;
  /** The new signal's position: the head counts `seq + 1` after it. */
  seq: number;
  /** The new signal's name: the head keeps the last one's, for a wake to decide without it. */
  name: string;
  expiresAt: number | undefined;
};

/**
 * A task's signal head → one more signal counted in the task's epoch, and filed in the wake
 * partition at the signal's time. Fenced by the epoch and count the sender read (or, for the
 * first signal, by its absence).
 */
export const countSignal: Write<CountInput> = {
  kind: 'item',
  name: 'count a signal in the head of',
  fence: ({ seen }) =>
    seen === undefined
      ? [notExists(TableSchema.PARTITION_KEY)]
      : [equals('epoch', 'seenHeadEpoch', seen.epoch), equals('count', 'seenCount', seen.count)],
  request: ({ key, task, epoch, seq, name, expiresAt }, now, settings) => {
    const update = new Update()
      .set('taskId', task.id)
      .set('created', task.createdAt)
      .set('epoch', epoch)
      .set('count', seq + 1)
      .set('last', name)
      .set(
        TableSchema.STATUS_INDEX_PARTITION_KEY,
        signalWakeKey(statusShard(task.id, settings.statusShards)),
      )
      .set(TableSchema.STATUS_INDEX_SORT_KEY, now);
    if (expiresAt !== undefined) update.set(TableSchema.TTL_ATTRIBUTE, expiresAt);
    return { op: 'update', key, update: update.build() };
  },
  writes: [
    'taskId',
    'created',
    'epoch',
    'count',
    'last',
    TableSchema.STATUS_INDEX_PARTITION_KEY,
    TableSchema.STATUS_INDEX_SORT_KEY,
    TableSchema.TTL_ATTRIBUTE,
  ],
};

/**
 * A signal head filed for wake → out of the wake partition, by the sweeper once nothing is
 * left to wake: fenced by the count it saw, so a signal counted since keeps it filed.
 */
export const unfileSignalHead: Write<{ key: string; epoch: number; count: number }> = {
  kind: 'item',
  name: 'unfile the signal head of',
  fence: ({ epoch, count }) => [
    equals('epoch', 'seenHeadEpoch', epoch),
    equals('count', 'seenCount', count),
  ],
  request: ({ key }) => ({
    op: 'update',
    key,
    update: new Update()
      .remove(TableSchema.STATUS_INDEX_PARTITION_KEY)
      .remove(TableSchema.STATUS_INDEX_SORT_KEY)
      .build(),
  }),
  writes: [TableSchema.STATUS_INDEX_PARTITION_KEY, TableSchema.STATUS_INDEX_SORT_KEY],
  returnsOld: false,
};

/** A signal's item (or its id's reservation), written once: conditioned on its own absence. */
export const storeSignal: Write<{ item: TaskItem }> = {
  kind: 'item',
  name: 'store the signal of',
  fence: () => [notExists(TableSchema.PARTITION_KEY)],
  request: ({ item }) => ({ op: 'put', item }),
  writes: ['*'],
};

/**
 * A signal's item, reservation or head deleted, if it is one of `taskId`'s (a purge, a
 * restart, a purged task's leftover).
 */
export const deleteSignal: Write<{ key: string; taskId: string }> = {
  kind: 'item',
  name: 'delete the signal of',
  fence: ({ taskId }) => [equals('taskId', 'taskId', taskId)],
  request: ({ key }) => ({ op: 'delete', key }),
  writes: ['*'],
  returnsOld: false,
};
