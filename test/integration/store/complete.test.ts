/** TaskStore.complete: the worker that holds the lease writes the result. */
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

useStoreTable('store-complete');

describe('TaskStore.complete', () => {
  it('completes only the RUNNING task under its own lease; every other status loses', async () => {
    const selection = await seedSelection('complete');
    const before = await snapshot(selection);

    const outcomes = await attemptOnEach(selection, ({ record, lease }) =>
      store.complete(lease ?? forgedLease(record), '{"ok":true}'),
    );

    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.RUNNING], ErrorCode.LEASE_LOST));
    expect(await changedSince(before)).toEqual([selection.RUNNING.record.id]);
  });

  it('writes SUCCEEDED with the result, finish time and TTL, and drops the lease', async () => {
    // Arrange
    const { lease } = await createRunning('complete-ok', 'worker-a');
    clock.now += 4_000;

    // Act
    const record = await store.complete(lease, '{"rows":42}');

    // Assert
    expect(record).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 1,
      result: { rows: 42 },
      finishedAt: clock.now,
      leaseToken: undefined,
      leaseExpiresAt: undefined,
    });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.SUCCEEDED,
      at: clock.now,
      attempt: 1,
      status: TaskStatus.SUCCEEDED,
      workerId: 'worker-a',
    });
    const item = await rawItem('complete-ok');
    expect(item).not.toHaveProperty('leaseToken');
    expect(item).not.toHaveProperty('leaseExpiresAt');
  });

  it('stores no result when the handler returned none', async () => {
    const { lease } = await createRunning('complete-void');

    const record = await store.complete(lease, undefined);

    expect(record.result).toBeUndefined();
    expect(await rawItem('complete-void')).not.toHaveProperty('result');
  });

  it('refuses a wrong lease token with LeaseLostError carrying the current record', async () => {
    const { record, lease } = await createRunning('complete-token');

    const err = await rejection(store.complete({ ...lease, leaseToken: 'someone-else' }, '{}'));

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.code).toBe(ErrorCode.LEASE_LOST);
    expect(err.current).toEqual(record);
    expect(await current('complete-token')).toEqual(record);
  });

  it('refuses a stale attempt number with LeaseLostError', async () => {
    const { record, lease } = await createRunning('complete-attempt');

    const err = await rejection(store.complete({ ...lease, attempt: 0 }, '{}'));

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(await current('complete-attempt')).toEqual(record);
  });

  it('writes the terminal record exactly once', async () => {
    const { lease } = await createRunning('complete-twice');
    const done = await store.complete(lease, '{"n":1}');

    const err = await rejection(store.complete(lease, '{"n":2}'));

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(done);
    expect(await current('complete-twice')).toEqual(done);
  });

  it('after a takeover, refuses the first lease and keeps the second attempt’s outcome', async () => {
    // Arrange: attempt 1 stalls past its lease; attempt 2 takes over.
    const first = await createRunning('complete-takeover', 'worker-a');
    clock.now += LEASE_MS + 1;
    const second = await store.claim(first.record, { workerId: 'worker-b', leaseMs: LEASE_MS });

    // Act: the stale worker finishes first, then the new one.
    const stale = await rejection(store.complete(first.lease, '{"by":"a"}'));
    const done = await store.complete(second.lease, '{"by":"b"}');
    const lateRetry = await rejection(
      store.retry(first.lease, { name: 'Error', message: 'late' }, 0),
    );

    // Assert
    expect(stale).toBeInstanceOf(LeaseLostError);
    expect(stale.current).toMatchObject({ status: TaskStatus.RUNNING, attempt: 2 });
    expect(lateRetry).toBeInstanceOf(LeaseLostError);
    expect(lateRetry.current).toEqual(done);
    const final = await current('complete-takeover');
    expect(final).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 2,
      result: { by: 'b' },
      workerId: 'worker-b',
    });
    expect(final.history.map((h) => [h.event, h.attempt, h.workerId])).toEqual([
      [AuditEvent.SUBMITTED, 0, undefined],
      [AuditEvent.SENT, 0, undefined],
      [AuditEvent.CLAIMED, 1, 'worker-a'],
      [AuditEvent.CLAIMED, 2, 'worker-b'],
      [AuditEvent.SUCCEEDED, 2, 'worker-b'],
    ]);
  });
});
