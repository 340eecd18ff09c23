/**
 * The rows of the transition table that write a task's record outside the lifecycle's moves:
 * its creation and purge, and the marks that keep its status (a confirmed schedule, a
 * duplicate's note, a re-send's count, a cancel request).
 */
import { Defaults, TableSchema, TaskStatus } from '../../core/constants.js';
import type { HistoryEntry, TaskRecord } from '../../core/record.js';
import { PRODUCER_HISTORY, toStoredEntry } from '../history.js';
import type { TaskItem } from '../record.js';
import { releaseDone } from '../status-index-keys.js';
import { compare, equals, generationIs, notExists, or, Update } from './expression.js';
import type { Write } from './row.js';

/** Every status: a row that accepts any task. */
export const ANY_STATUS: readonly TaskStatus[] = Object.values(TaskStatus);

/**
 * (none) | ROLLED_BACK → the new task's item: the id is free, or its record was rolled back
 * (its enqueue threw, so nobody was told it exists) and the release of the dependents that
 * registered on it while it was SCHEDULED is done: they are cancelled, so none of them waits
 * for the new task that reuses the id (docs/adr/0031-dependency-fences.md). Anything else is
 * kept and returned (ALL_OLD) for the caller to compare, or, rolled back, to finish that
 * release first (docs/adr/0015-rollback-moves-instead-of-deleting.md).
 *
 * The new record is created strictly after the rolled-back one (`createdAt` below the new
 * one's): `createdAt` names a record of the id (a message's, a confirmation's, a give-up's),
 * so two records of one id never share it. A producer whose clock gives the same millisecond,
 * or an earlier one, writes again one millisecond after the rolled-back record
 * (docs/adr/0065-a-revived-id-is-created-later.md).
 */
export const create: Write<{ item: TaskItem }> = {
  kind: 'create',
  name: 'create',
  from: [TaskStatus.ROLLED_BACK],
  orAbsent: true,
  creates: [TaskStatus.WAITING, TaskStatus.SCHEDULED, TaskStatus.PENDING],
  fence: ({ item }) => [releaseDone(), compare('createdAt', '<', 'newCreatedAt', item.createdAt)],
  request: ({ item }) => ({ op: 'put', item }),
  writes: ['*'],
};

/** DEAD → (deleted), if it is still the record the caller saw (same `updatedAt`). */
export const purge: Write<{ seen: Pick<TaskRecord, 'id' | 'updatedAt'> }> = {
  kind: 'purge',
  name: 'purge',
  from: [TaskStatus.DEAD],
  // Not while its release settles its dependents for this death: they would wait for a
  // parent that is gone (docs/adr/0038-model-found-enqueue-and-purge-fixes.md).
  fence: ({ seen }) => [equals('updatedAt', 'seenUpdatedAt', seen.updatedAt), releaseDone()],
  request: ({ seen }) => ({ op: 'delete', key: seen.id }),
  writes: ['*'],
};

/**
 * SCHEDULED → SCHEDULED with `scheduleConfirmed`: the record an enqueue wrote, as it wrote
 * it (the same creation time, not a later record of the same id; never attempted; the same
 * generation), confirmed by another enqueue of the id, so its writer no longer rolls it back
 * (ADR 0009).
 */
export const confirmSchedule: Write<{
  seen: Pick<TaskRecord, 'id' | 'generation' | 'createdAt'>;
}> = {
  kind: 'mark',
  name: 'confirm the schedule of',
  from: [TaskStatus.SCHEDULED],
  fence: ({ seen }) => [
    equals('createdAt', 'createdAt', seen.createdAt),
    equals('attempt', 'zero', 0),
    generationIs('generation', seen.generation),
  ],
  request: ({ seen }) => ({
    op: 'update',
    key: seen.id,
    update: new Update().set('scheduleConfirmed', true).build(),
    returns: 'ALL_NEW',
  }),
  writes: ['scheduleConfirmed'],
};

/**
 * Any status → the same, with a `duplicate-dropped` entry appended, while the record holds
 * fewer than `Defaults.MAX_DUPLICATE_NOTES` of them: the record of an idempotent no-op.
 */
export const noteDuplicate: Write<{ id: string; entry: HistoryEntry }> = {
  kind: 'mark',
  name: 'note a duplicate of',
  from: ANY_STATUS,
  fence: () => [
    or([
      notExists('duplicateNotes'),
      compare('duplicateNotes', '<', 'maxNotes', Defaults.MAX_DUPLICATE_NOTES),
    ]),
  ],
  request: ({ id, entry }) => ({
    op: 'update',
    key: id,
    update: new Update()
      .append('history', [toStoredEntry(entry)])
      .increment('duplicateNotes')
      .build(),
  }),
  writes: ['history', 'duplicateNotes'],
  returnsOld: false,
};

/**
 * PENDING → PENDING, counted as sent again (`resends` one more than seen) and due again at
 * `nextAt` (the status index's sort key), so the sweep's PENDING query skips it until then.
 * Pinned to the record seen (generation and resends), so of two sweepers only one counts.
 */
export const noteResent: Write<{
  seen: Pick<TaskRecord, 'id' | 'generation' | 'resends'>;
  nextAt: number;
}> = {
  kind: 'mark',
  name: 'note the re-send of',
  from: [TaskStatus.PENDING],
  fence: ({ seen }) => [
    generationIs('generation', seen.generation),
    seen.resends === 0
      ? or([notExists('resends'), equals('resends', 'seenResends', 0)])
      : equals('resends', 'seenResends', seen.resends),
  ],
  request: ({ seen, nextAt }) => ({
    op: 'update',
    key: seen.id,
    update: new Update()
      .set('resends', seen.resends + 1)
      .set(TableSchema.STATUS_INDEX_SORT_KEY, nextAt)
      .build(),
  }),
  writes: ['resends', TableSchema.STATUS_INDEX_SORT_KEY],
  returnsOld: false,
};

/**
 * RUNNING, not yet asked → RUNNING with `cancelRequestedAt` and the request's entry in the
 * history, leaving the status, the lease and the status index alone. Not fenced by the
 * lease: the request is for the task, whichever attempt holds it. Its entry goes to the
 * producer's own list (a producer's grant may not name `history`: store/history.ts),
 * at most one per run and within the list's bound; without an entry (`undefined`) only the
 * mark is written (docs/adr/0022-progress-and-running-cancel.md).
 */
export const requestCancel: Write<{ id: string; entry: HistoryEntry | undefined }> = {
  kind: 'mark',
  name: 'request the cancel of',
  from: [TaskStatus.RUNNING],
  fence: () => [notExists('cancelRequestedAt')],
  request: ({ id, entry }, now) => ({
    op: 'update',
    key: id,
    update: (entry === undefined
      ? new Update().set('cancelRequestedAt', now).set('updatedAt', now)
      : new Update()
          .set('cancelRequestedAt', now)
          .set('updatedAt', now)
          .appendOrCreate(PRODUCER_HISTORY, [toStoredEntry(entry)])
    ).build(),
    returns: 'ALL_NEW',
  }),
  writes: ['cancelRequestedAt', 'updatedAt', PRODUCER_HISTORY],
};
