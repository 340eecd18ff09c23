/** TaskStore.claim: a worker takes a task under a lease, or takes over an expired one. */
import { describe, expect, it, onTestFinished } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { ErrorCode, LeaseLostError, TransitionRejectedError } from '../../../src/core/errors.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { RecordWrites } from '../../../src/store/record-writes.js';
import { TaskStore } from '../../../src/store/task-store.js';
import { decideClaim } from '../../../src/worker/claim-decision.js';
import {
  attemptOnEach,
  changedSince,
  expectedOutcomes,
  rejection,
  seedSelection,
  snapshot,
} from '../../helpers/store-selection.js';
import {
  clock,
  createQueued,
  createRunning,
  current,
  LEASE_MS,
  newTask,
  serializedClient,
  store,
  T0,
  tableName,
  useStoreTable,
} from '../../helpers/store-table.js';

useStoreTable('store-claim');

describe('TaskStore.claim', () => {
  it('claims only PENDING and QUEUED tasks, and refuses every other status', async () => {
    const selection = await seedSelection('claim');
    const before = await snapshot(selection);

    const outcomes = await attemptOnEach(selection, ({ record }) =>
      store.claim(record, { workerId: 'worker-b', leaseMs: LEASE_MS }),
    );

    expect(outcomes).toEqual(
      expectedOutcomes([TaskStatus.PENDING, TaskStatus.QUEUED], ErrorCode.TRANSITION_REJECTED),
    );
    expect((await changedSince(before)).sort()).toEqual(
      [selection.PENDING.record.id, selection.QUEUED.record.id].sort(),
    );
  });

  it('starts attempt 1 of a QUEUED task under a fresh lease', async () => {
    // Arrange
    const queued = await createQueued('claim-queued');
    clock.now += 2_000;

    // Act
    const { record, lease } = await store.claim(queued, {
      workerId: 'worker-a',
      leaseMs: LEASE_MS,
      detail: 'message m-1, receive 1',
    });

    // Assert
    expect(lease).toEqual({
      taskId: 'claim-queued',
      taskType: 'report.build',
      attempt: 1,
      leaseToken: expect.stringMatching(/^[0-9a-f-]{36}$/),
      workerId: 'worker-a',
      history: record.history,
    });
    expect(record).toMatchObject({
      status: TaskStatus.RUNNING,
      attempt: 1,
      leaseToken: lease.leaseToken,
      leaseExpiresAt: T0 + 2_000 + LEASE_MS,
      workerId: 'worker-a',
      updatedAt: T0 + 2_000,
    });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.CLAIMED,
      at: T0 + 2_000,
      attempt: 1,
      status: TaskStatus.RUNNING,
      workerId: 'worker-a',
      detail: 'message m-1, receive 1',
    });
    expect(await current('claim-queued')).toEqual(record);
  });

  it('claims a PENDING task whose message arrived before markSent', async () => {
    const { record: pending } = await store.feature(RecordWrites).create(newTask('claim-pending'));

    const { record, lease } = await store.claim(pending, { workerId: 'w', leaseMs: LEASE_MS });

    expect(record.status).toBe(TaskStatus.RUNNING);
    expect(lease.attempt).toBe(1);
    expect(record.history.at(-1)).toMatchObject({ event: AuditEvent.CLAIMED, attempt: 1 });
  });

  it('rejects a claim while another lease is live', async () => {
    const { record: running } = await createRunning('claim-live', 'worker-a');
    clock.now += LEASE_MS - 1;

    const err = await rejection(store.claim(running, { workerId: 'worker-b', leaseMs: LEASE_MS }));

    expect(err.code).toBe(ErrorCode.TRANSITION_REJECTED);
    expect(err.current).toEqual(running);
    expect(await current('claim-live')).toEqual(running);
  });

  it('takes over an expired lease as a new attempt with a new token', async () => {
    const first = await createRunning('claim-expired', 'worker-a');
    clock.now += LEASE_MS + 1;

    const second = await store.claim(first.record, { workerId: 'worker-b', leaseMs: LEASE_MS });

    expect(second.lease.attempt).toBe(2);
    expect(second.lease.leaseToken).not.toBe(first.lease.leaseToken);
    expect(second.record).toMatchObject({
      status: TaskStatus.RUNNING,
      attempt: 2,
      workerId: 'worker-b',
      leaseToken: second.lease.leaseToken,
      leaseExpiresAt: clock.now + LEASE_MS,
    });
    expect(second.record.history.filter((h) => h.event === AuditEvent.CLAIMED)).toEqual([
      expect.objectContaining({ attempt: 1, workerId: 'worker-a' }),
      expect.objectContaining({ attempt: 2, workerId: 'worker-b' }),
    ]);
  });

  it('takes over a lease at the very millisecond it expires, as decideClaim does', async () => {
    const first = await createRunning('claim-at-expiry', 'worker-a');
    clock.now = T0 + LEASE_MS;
    expect(first.record.leaseExpiresAt).toBe(clock.now);

    const second = await store.claim(first.record, { workerId: 'worker-b', leaseMs: LEASE_MS });

    expect(decideClaim(first.record, clock.now)).toEqual({ kind: 'claim' });
    expect(second.lease.attempt).toBe(2);
    expect(second.record).toMatchObject({
      status: TaskStatus.RUNNING,
      attempt: 2,
      workerId: 'worker-b',
      leaseToken: second.lease.leaseToken,
      leaseExpiresAt: clock.now + LEASE_MS,
    });
  });

  it('refuses a takeover one millisecond before the lease expires, as decideClaim does', async () => {
    const first = await createRunning('claim-before-expiry', 'worker-a');
    clock.now = T0 + LEASE_MS - 1;

    const err = await rejection(
      store.claim(first.record, { workerId: 'worker-b', leaseMs: LEASE_MS }),
    );

    expect(decideClaim(first.record, clock.now)).toMatchObject({ kind: 'defer', delayMs: 1 });
    expect(err.code).toBe(ErrorCode.TRANSITION_REJECTED);
    expect(err.current).toEqual(first.record);
    expect(await current('claim-before-expiry')).toEqual(first.record);
  });

  it('lets exactly one of several concurrent claims from the same read win', async () => {
    // moto_server evaluates a condition and applies the update without a per-item lock, so
    // two truly simultaneous requests can both pass it; DynamoDB serializes writes to an item.
    // The gated client reproduces that serialization in whatever order the requests arrive;
    // which claim wins is still decided by the store's condition alone.
    const gated = serializedClient();
    onTestFinished(() => gated.destroy());
    const racingStore = new TaskStore({
      tableName,
      dynamodb: gated,
      logger: silentLogger,
      clock: () => clock.now,
    });
    for (let round = 0; round < 5; round++) {
      // Arrange
      const seen = await createQueued(`claim-race-${round}`);

      // Act
      const results = await Promise.allSettled(
        ['w1', 'w2', 'w3', 'w4'].map((workerId) =>
          racingStore.claim(seen, { workerId, leaseMs: LEASE_MS }),
        ),
      );

      // Assert
      const winners = results.filter((r) => r.status === 'fulfilled');
      const losers = results.filter((r) => r.status === 'rejected');
      expect(winners).toHaveLength(1);
      const winner = winners[0]?.status === 'fulfilled' ? winners[0].value : undefined;
      for (const loser of losers) {
        expect(loser.reason).toBeInstanceOf(TransitionRejectedError);
        expect(loser.reason).not.toBeInstanceOf(LeaseLostError);
        expect(loser.reason.current).toMatchObject({ status: TaskStatus.RUNNING, attempt: 1 });
      }
      const stored = await current(seen.id);
      expect(stored.leaseToken).toBe(winner?.lease.leaseToken);
      expect(stored.history.filter((h) => h.event === AuditEvent.CLAIMED)).toHaveLength(1);
    }
  });

  it('lets only the first of two claims made from the same read win', async () => {
    const seen = await createQueued('claim-same-read');
    const first = await store.claim(seen, { workerId: 'w1', leaseMs: LEASE_MS });

    const err = await rejection(store.claim(seen, { workerId: 'w2', leaseMs: LEASE_MS }));

    expect(err.current).toEqual(first.record);
  });

  it('refuses a claim from a stale read once the task has moved on', async () => {
    const seen = await createQueued('claim-stale');
    const { lease } = await store.claim(seen, { workerId: 'w1', leaseMs: LEASE_MS });
    await store.retry(lease, { name: 'Error', message: 'boom' }, 0);

    // The task is QUEUED again, but at attempt 1, not the attempt 0 that was read.
    const err = await rejection(store.claim(seen, { workerId: 'w2', leaseMs: LEASE_MS }));

    expect(err.current).toMatchObject({ status: TaskStatus.QUEUED, attempt: 1 });
  });

  it('refuses a claim when the attempt has reached maxAttempts', async () => {
    // A one-attempt task whose only attempt failed back to QUEUED.
    const first = await createRunning('claim-exhausted', 'w1', { maxAttempts: 1 });
    const requeued = await store.retry(first.lease, { name: 'Error', message: 'x' }, 0);
    expect(requeued).toMatchObject({ status: TaskStatus.QUEUED, attempt: 1, maxAttempts: 1 });

    const err = await rejection(store.claim(requeued, { workerId: 'w2', leaseMs: LEASE_MS }));

    expect(err.current).toEqual(requeued);
    expect(await current('claim-exhausted')).toEqual(requeued);
  });

  it('refuses to take over an expired lease on the final attempt', async () => {
    const { record } = await createRunning('claim-final', 'w1', { maxAttempts: 1 });
    clock.now += LEASE_MS + 1;

    const err = await rejection(store.claim(record, { workerId: 'w2', leaseMs: LEASE_MS }));

    expect(err.current).toEqual(record);
  });
});
