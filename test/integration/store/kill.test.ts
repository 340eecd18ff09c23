/** TaskStore.kill: the lease holder, or whoever sees the final lease expired, declares the task dead. */
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { ErrorCode, LeaseLostError } from '../../../src/core/errors.js';
import { decideClaim } from '../../../src/worker/claim-decision.js';
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
  store,
  T0,
  useStoreTable,
} from '../../helpers/store-table.js';

useStoreTable('store-kill');

describe('TaskStore.kill', () => {
  it('kills only the RUNNING task under its own lease; every other status loses', async () => {
    const selection = await seedSelection('kill');
    const before = await snapshot(selection);

    const outcomes = await attemptOnEach(selection, ({ record, lease }) =>
      store.kill(lease ?? forgedLease(record), 'poison'),
    );

    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.RUNNING], ErrorCode.LEASE_LOST));
    expect(await changedSince(before)).toEqual([selection.RUNNING.record.id]);
  });

  it('writes DEAD with the reason, the error and the finish time, and drops the lease', async () => {
    // Arrange
    const { lease } = await createRunning('kill-ok', 'worker-a');
    clock.now += 1_500;

    // Act
    const record = await store.kill(lease, 'permanent error: no such month', {
      error: { name: 'PermanentError', message: 'no such month' },
    });

    // Assert
    expect(record).toMatchObject({
      status: TaskStatus.DEAD,
      attempt: 1,
      deadReason: 'permanent error: no such month',
      lastError: { name: 'PermanentError', message: 'no such month' },
      finishedAt: clock.now,
      leaseToken: undefined,
      leaseExpiresAt: undefined,
    });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.DEAD,
      at: clock.now,
      attempt: 1,
      status: TaskStatus.DEAD,
      workerId: 'worker-a',
      detail: 'permanent error: no such month',
    });
  });

  it('refuses a wrong lease token with LeaseLostError', async () => {
    const { record, lease } = await createRunning('kill-token');

    const err = await rejection(store.kill({ ...lease, leaseToken: 'x' }, 'r'));

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(record);
    expect(await current('kill-token')).toEqual(record);
  });
});

describe('TaskStore.expire', () => {
  it('refuses while the lease is still live', async () => {
    // Another worker saw the record and wants to declare it dead.
    const { record } = await createRunning('kill-live', 'worker-a', { maxAttempts: 1 });
    clock.now += LEASE_MS - 1;

    const err = await rejection(
      store.expire(record, 'lease expired on the final attempt', 'worker-b'),
    );

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(record);
    expect(await current('kill-live')).toEqual(record);
  });

  it('kills once the lease has expired', async () => {
    const { record } = await createRunning('kill-expired', 'worker-a', { maxAttempts: 1 });
    clock.now += LEASE_MS + 1;
    const dead = await store.expire(record, 'lease expired on the final attempt', 'worker-b');
    expect(dead).toMatchObject({
      status: TaskStatus.DEAD,
      attempt: 1,
      deadReason: 'lease expired on the final attempt',
    });
    expect(dead.history.at(-1)).toMatchObject({
      event: AuditEvent.DEAD,
      attempt: 1,
      workerId: 'worker-b',
    });
  });

  it('kills at the very millisecond the final lease expires, as decideClaim does', async () => {
    const { record } = await createRunning('kill-at-expiry', 'worker-a', { maxAttempts: 1 });
    clock.now = T0 + LEASE_MS;
    expect(record.leaseExpiresAt).toBe(clock.now);

    const dead = await store.expire(record, 'lease expired on the final attempt', 'worker-b');

    expect(decideClaim(record, clock.now)).toEqual({ kind: 'expire' });
    expect(dead).toMatchObject({ status: TaskStatus.DEAD, attempt: 1, finishedAt: clock.now });
    expect(dead.history.at(-1)).toMatchObject({ event: AuditEvent.DEAD, workerId: 'worker-b' });
  });

  it('refuses one millisecond before the final lease expires, as decideClaim does', async () => {
    const { record } = await createRunning('kill-before-expiry', 'worker-a', { maxAttempts: 1 });
    clock.now = T0 + LEASE_MS - 1;

    const err = await rejection(
      store.expire(record, 'lease expired on the final attempt', 'worker-b'),
    );

    expect(decideClaim(record, clock.now)).toMatchObject({ kind: 'defer', delayMs: 1 });
    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(record);
    expect(await current('kill-before-expiry')).toEqual(record);
  });
});
