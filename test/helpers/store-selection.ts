/**
 * One task in each status the store can reach, and what a transition does to each of them
 * (graphile's makeSelectionOfJobs): most transition tests seed a selection, apply the
 * transition to every task in it, and check which were accepted and which items changed.
 */
import { expect } from 'vitest';
import { TaskStatus } from '../../src/core/constants.js';
import { type ErrorCode, TransitionRejectedError } from '../../src/core/errors.js';
import type { TaskRecord } from '../../src/core/record.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { RepairWrites } from '../../src/store/repair-writes.js';
import type { Lease } from '../../src/store/task-store.js';
import { createQueued, createRunning, newTask, rawItem, store } from './store-table.js';

/** Statuses the store can produce today; SCHEDULED has no store path yet. */
export const SEEDED_STATUSES = [
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  TaskStatus.RUNNING,
  TaskStatus.SUCCEEDED,
  TaskStatus.DEAD,
  TaskStatus.CANCELLED,
] as const;
export type SeededStatus = (typeof SEEDED_STATUSES)[number];

export interface Seeded {
  readonly record: TaskRecord;
  /** The lease that claimed the task, for RUNNING and the states reached from it. */
  readonly lease: Lease | undefined;
}
export type Selection = Record<SeededStatus, Seeded>;
/** What a transition did to one seeded task: accepted, or the code of the refusal. */
export type Outcome = 'accepted' | ErrorCode;

/** One task in each status the store can reach, ids `<prefix>-seed-<status>`. */
export async function seedSelection(prefix: string): Promise<Selection> {
  const id = (status: string) => `${prefix}-seed-${status.toLowerCase()}`;
  const pending = (await store.feature(RecordWrites).create(newTask(id('PENDING')))).record;
  const queued = await createQueued(id('QUEUED'));
  const running = await createRunning(id('RUNNING'));
  const toSucceed = await createRunning(id('SUCCEEDED'));
  const succeeded = await store.complete(toSucceed.lease, '{"rows":3}');
  const toKill = await createRunning(id('DEAD'));
  const dead = await store.kill(toKill.lease, 'permanent error: bad month');
  const toCancel = (await store.feature(RecordWrites).create(newTask(id('CANCELLED')))).record;
  const cancelled = await store.feature(RepairWrites).cancel(toCancel, 'no longer needed');
  return {
    PENDING: { record: pending, lease: undefined },
    QUEUED: { record: queued, lease: undefined },
    RUNNING: running,
    SUCCEEDED: { record: succeeded, lease: toSucceed.lease },
    DEAD: { record: dead, lease: toKill.lease },
    CANCELLED: { record: cancelled, lease: undefined },
  };
}

export async function snapshot(
  selection: Selection,
): Promise<Map<string, Record<string, unknown>>> {
  const items = new Map<string, Record<string, unknown>>();
  for (const { record } of Object.values(selection)) items.set(record.id, await rawItem(record.id));
  return items;
}

/** Ids of the seeded tasks whose stored item differs from the snapshot. */
export async function changedSince(
  before: Map<string, Record<string, unknown>>,
): Promise<string[]> {
  const changed: string[] = [];
  for (const [id, item] of before) {
    const after = await rawItem(id);
    if (JSON.stringify(after) !== JSON.stringify(item)) changed.push(id);
  }
  return changed;
}

/**
 * Applies a transition to every seeded task. A refusal must be the store's domain error and
 * must explain itself with the record as DynamoDB saw it.
 */
export async function attemptOnEach(
  selection: Selection,
  transition: (seeded: Seeded) => Promise<unknown>,
): Promise<Record<SeededStatus, Outcome>> {
  const outcomes = {} as Record<SeededStatus, Outcome>;
  for (const status of SEEDED_STATUSES) {
    try {
      await transition(selection[status]);
      outcomes[status] = 'accepted';
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      expect(err.current?.id).toBe(selection[status].record.id);
      expect(err.current?.status).toBe(status);
      outcomes[status] = err.code;
    }
  }
  return outcomes;
}

/** The outcome table of a transition that accepts `allowed` and refuses the rest with `refusal`. */
export function expectedOutcomes(
  allowed: readonly SeededStatus[],
  refusal: ErrorCode,
): Record<SeededStatus, Outcome> {
  const outcomes = {} as Record<SeededStatus, Outcome>;
  for (const status of SEEDED_STATUSES) {
    outcomes[status] = allowed.includes(status) ? 'accepted' : refusal;
  }
  return outcomes;
}

/** A lease that was never granted, for tasks that have none. */
export function forgedLease(record: TaskRecord): Lease {
  return {
    taskId: record.id,
    taskType: record.type,
    attempt: record.attempt,
    leaseToken: 'forged',
    workerId: 'intruder',
  };
}

/** The refusal a transition rejects with; fails the test if the transition went through. */
export async function rejection(promise: Promise<unknown>): Promise<TransitionRejectedError> {
  const err = await promise.then(
    () => {
      throw new Error('expected the transition to be refused');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TransitionRejectedError);
  return err as TransitionRejectedError;
}
