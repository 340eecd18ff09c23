/**
 * Folding the history within a transition's one write: the rewrite is pinned to the list it
 * was folded from, so an entry written meanwhile is kept, and a refused transition is still
 * refused with the record DynamoDB saw.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, Defaults, TaskStatus } from '../../src/core/constants.js';
import { TransitionRejectedError } from '../../src/core/errors.js';
import type { HistoryEntry, TaskRecord } from '../../src/core/record.js';
import { historyBytes } from '../../src/store/history.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { RepairWrites } from '../../src/store/repair-writes.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { putRawItem, rawItem } from '../helpers/raw-item.js';

let executor: TestExecutor;
let store: TaskStore;

beforeEach(async () => {
  executor = await setupExecutor();
  store = executor.store;
});

const noop = defineTask('noop', { schema: z.object({}), handler: () => undefined });

/** A QUEUED task whose history is exactly at its budget (as many redrives would leave it). */
async function taskAtBudget(): Promise<TaskRecord> {
  const { id } = await executor.client().enqueue(noop, {});
  const item = await rawItem(executor, id);
  const history = [...(item.history as HistoryEntry[])];
  for (let n = 0; historyBytes(history) < Defaults.HISTORY_BUDGET_BYTES - 60; n++) {
    history.push({
      event: AuditEvent.RETRY_SCHEDULED,
      at: 1_700_000_000_000 + n,
      attempt: n,
      status: TaskStatus.QUEUED,
      workerId: 'worker-1',
      detail: `UpstreamError: ${'e'.repeat(200)}`,
    });
  }
  await putRawItem(executor, { ...item, history });
  const record = await store.get(id);
  if (record === undefined) throw new Error('expected the record');
  return record;
}

describe('TaskStore history budget', () => {
  it('folds the history in the transition write, keeping the first and the newest entries', async () => {
    const seen = await taskAtBudget();

    const { record } = await store.claim(seen, {
      workerId: 'w1',
      leaseMs: 60_000,
      detail: 'first claim',
    });

    expect(record.status).toBe(TaskStatus.RUNNING);
    expect(record.historyTruncated).toBeGreaterThan(0);
    expect(record.history.length + record.historyTruncated).toBe(seen.history.length + 1);
    expect(record.history[0]).toEqual(seen.history[0]);
    expect(record.history.at(-2)).toEqual(seen.history.at(-1));
    expect(record.history.at(-1)).toMatchObject({
      event: AuditEvent.CLAIMED,
      detail: 'first claim',
    });
    expect(historyBytes(record.history)).toBeLessThanOrEqual(Defaults.HISTORY_BUDGET_BYTES);
    expect(await store.get(seen.id)).toEqual(record);
  });

  it("leaves the stored history whole on a producer's cancel, whose entry has a list of its own", async () => {
    const seen = await taskAtBudget();

    const record = await store.feature(RepairWrites).cancel(seen, 'no longer needed');

    expect(record.status).toBe(TaskStatus.CANCELLED);
    expect(record.historyTruncated).toBe(0);
    expect(record.history.slice(0, -1)).toEqual(seen.history);
    expect(record.history.at(-1)).toMatchObject({
      event: AuditEvent.CANCELLED,
      detail: 'no longer needed',
    });
  });

  it('keeps an entry written after the caller read the history, folding again from it', async () => {
    // A duplicate note lands between the caller's read and its transition.
    const seen = await taskAtBudget();
    await store.feature(RecordWrites).noteDuplicate(seen, 'firing delivered twice');

    const { record } = await store.claim(seen, { workerId: 'w1', leaseMs: 60_000 });

    expect(record.status).toBe(TaskStatus.RUNNING);
    expect(record.historyTruncated).toBeGreaterThan(0);
    expect(record.history.length + record.historyTruncated).toBe(seen.history.length + 2);
    expect(record.history.slice(-2).map((h) => h.event)).toEqual([
      AuditEvent.DUPLICATE_DROPPED,
      AuditEvent.CLAIMED,
    ]);
  });

  it('refuses a transition from the wrong state without rewriting the history', async () => {
    // The task was claimed after the caller read it QUEUED.
    const seen = await taskAtBudget();
    const { record: running } = await store.claim(seen, { workerId: 'w1', leaseMs: 60_000 });

    const err = await store
      .feature(RepairWrites)
      .cancel(seen)
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(TransitionRejectedError);
    expect((err as TransitionRejectedError).current).toEqual(running);
    expect(await store.get(seen.id)).toEqual(running);
  });
});
