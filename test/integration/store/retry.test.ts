/** TaskStore.retry: the worker that holds the lease hands the task back for another attempt. */
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { ErrorCode, LeaseLostError } from '../../../src/core/errors.js';
import {
  attemptOnEach,
  changedSince,
  expectedOutcomes,
  forgedLease,
  rejection,
  seedSelection,
  snapshot,
} from '../../helpers/store-selection.js';
import {
  clock,
  createRunning,
  current,
  LEASE_MS,
  rawItem,
  store,
  useStoreTable,
} from '../../helpers/store-table.js';

useStoreTable('store-retry');

describe('TaskStore.retry', () => {
  it('retries only the RUNNING task under its own lease; every other status loses', async () => {
    const selection = await seedSelection('retry');
    const before = await snapshot(selection);

    const outcomes = await attemptOnEach(selection, ({ record, lease }) =>
      store.retry(lease ?? forgedLease(record), { name: 'E', message: 'm' }, 0),
    );

    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.RUNNING], ErrorCode.LEASE_LOST));
    expect(await changedSince(before)).toEqual([selection.RUNNING.record.id]);
  });

  it('returns the task to QUEUED with lastError, keeps the attempt, and drops the lease', async () => {
    // Arrange
    const { lease } = await createRunning('retry-ok', 'worker-a');
    clock.now += 3_000;

    // Act
    const record = await store.retry(
      lease,
      { name: 'TimeoutError', message: 'upstream slow' },
      5_000,
    );

    // Assert
    expect(record).toMatchObject({
      status: TaskStatus.QUEUED,
      attempt: 1,
      lastError: { name: 'TimeoutError', message: 'upstream slow' },
      leaseToken: undefined,
      leaseExpiresAt: undefined,
      finishedAt: undefined,
    });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.RETRY_SCHEDULED,
      at: clock.now,
      attempt: 1,
      status: TaskStatus.QUEUED,
      workerId: 'worker-a',
      detail: 'TimeoutError: upstream slow (next attempt in 5000 ms)',
    });
    const item = await rawItem('retry-ok');
    expect(item).not.toHaveProperty('leaseToken');
    expect(item.statusAt).toBe(clock.now + 5_000);
    expect(item).not.toHaveProperty('expiresAt');
  });

  it('lets the next claim start the following attempt', async () => {
    const { lease } = await createRunning('retry-next', 'worker-a');
    const requeued = await store.retry(lease, { name: 'E', message: 'm' }, 0);

    const next = await store.claim(requeued, { workerId: 'worker-b', leaseMs: LEASE_MS });

    expect(next.lease.attempt).toBe(2);
    expect(next.record.lastError).toEqual({ name: 'E', message: 'm' });
  });

  it('refuses a wrong lease token with LeaseLostError and leaves the record alone', async () => {
    const { record, lease } = await createRunning('retry-token');

    const err = await rejection(
      store.retry({ ...lease, leaseToken: 'nope' }, { name: 'E', message: 'm' }, 0),
    );

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(record);
    expect(await current('retry-token')).toEqual(record);
  });
});
