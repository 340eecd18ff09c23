/** TaskStore.cancel: a task that has not started is withdrawn. */
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { ErrorCode } from '../../../src/core/errors.js';
import { RepairWrites } from '../../../src/store/repair-writes.js';
import {
  attemptOnEach,
  changedSince,
  expectedOutcomes,
  rejection,
  seedSelection,
  snapshot,
} from '../../helpers/store-selection.js';
import { clock, createQueued, LEASE_MS, store, useStoreTable } from '../../helpers/store-table.js';

useStoreTable('store-cancel');

describe('TaskStore.cancel', () => {
  it('cancels only PENDING and QUEUED tasks, and refuses every other status', async () => {
    const selection = await seedSelection('cancel');
    const before = await snapshot(selection);

    const outcomes = await attemptOnEach(selection, ({ record }) =>
      store.feature(RepairWrites).cancel(record, 'user asked'),
    );

    expect(outcomes).toEqual(
      expectedOutcomes([TaskStatus.PENDING, TaskStatus.QUEUED], ErrorCode.TRANSITION_REJECTED),
    );
    expect((await changedSince(before)).sort()).toEqual(
      [selection.PENDING.record.id, selection.QUEUED.record.id].sort(),
    );
  });

  it('writes CANCELLED with the reason in the history', async () => {
    const queued = await createQueued('cancel-ok');
    clock.now += 700;

    const record = await store.feature(RepairWrites).cancel(queued, 'duplicate order');

    expect(record).toMatchObject({
      status: TaskStatus.CANCELLED,
      attempt: 0,
      finishedAt: clock.now,
    });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.CANCELLED,
      at: clock.now,
      attempt: 0,
      status: TaskStatus.CANCELLED,
      detail: 'duplicate order',
    });
  });

  it('refuses a stale read whose attempt is no longer current', async () => {
    const seen = await createQueued('cancel-stale');
    const { lease } = await store.claim(seen, { workerId: 'w', leaseMs: LEASE_MS });
    const requeued = await store.retry(lease, { name: 'E', message: 'm' }, 0);

    const err = await rejection(store.feature(RepairWrites).cancel(seen));

    expect(err.current).toEqual(requeued);
  });
});
