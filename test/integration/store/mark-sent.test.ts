/** TaskStore.markSent: PENDING to QUEUED once the message is on the queue. */
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/constants.js';
import { ErrorCode } from '../../../src/errors.js';
import {
  attemptOnEach,
  changedSince,
  expectedOutcomes,
  rejection,
  seedSelection,
  snapshot,
} from '../../helpers/store-selection.js';
import { clock, current, newTask, store, T0, useStoreTable } from '../../helpers/store-table.js';

useStoreTable('store-mark-sent');

describe('TaskStore.markSent', () => {
  it('moves only the PENDING task to QUEUED, and refuses every other status', async () => {
    const selection = await seedSelection('sent');
    const before = await snapshot(selection);
    clock.now += 1_000;

    const outcomes = await attemptOnEach(selection, ({ record }) => store.markSent(record));

    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.PENDING], ErrorCode.TRANSITION_REJECTED));
    expect(await changedSince(before)).toEqual([selection.PENDING.record.id]);
    const queued = await current(selection.PENDING.record.id);
    expect(queued.status).toBe(TaskStatus.QUEUED);
    expect(queued.history.at(-1)).toEqual({
      event: AuditEvent.SENT,
      at: T0 + 1_000,
      attempt: 0,
      status: TaskStatus.QUEUED,
    });
  });

  it('refuses a generation that is not the current one', async () => {
    const { record } = await store.create(newTask('sent-stale'));

    const err = await rejection(store.markSent({ ...record, generation: 2 }));

    expect(err.code).toBe(ErrorCode.TRANSITION_REJECTED);
    expect(err.current?.status).toBe(TaskStatus.PENDING);
    expect((await current('sent-stale')).status).toBe(TaskStatus.PENDING);
  });

  it('refuses a task that does not exist, with no current record', async () => {
    const err = await rejection(
      store.markSent({ id: 'sent-ghost', type: 'report.build', generation: 1, attempt: 0 }),
    );

    expect(err.current).toBeUndefined();
    expect(await store.get('sent-ghost')).toBeUndefined();
  });
});
