/**
 * TaskStore.unclaim: the lease holder gives back a claim it could not start (a dependency
 * outage), without spending the attempt.
 */
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

useStoreTable('store-unclaim');

const outage = { takeover: false, delayMs: 10_000 };

describe('TaskStore.unclaim', () => {
  it('gives back only the RUNNING task under its own lease; every other status loses', async () => {
    const selection = await seedSelection('unclaim');
    const before = await snapshot(selection);

    const outcomes = await attemptOnEach(selection, ({ record, lease }) =>
      store.unclaim(lease ?? forgedLease(record), 'S3 unavailable', outage),
    );

    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.RUNNING], ErrorCode.LEASE_LOST));
    expect(await changedSince(before)).toEqual([selection.RUNNING.record.id]);
  });

  it('returns the task to QUEUED at the attempt before the claim, without the lease', async () => {
    const { lease } = await createRunning('unclaim-ok', 'worker-a');
    clock.now += 2_000;

    const record = await store.unclaim(lease, 'S3 unavailable (SlowDown: reduce)', outage);

    expect(record).toMatchObject({
      status: TaskStatus.QUEUED,
      attempt: 0,
      leaseToken: undefined,
      leaseExpiresAt: undefined,
      lastError: undefined,
      finishedAt: undefined,
    });
    expect(record.history.at(-1)).toEqual({
      event: AuditEvent.UNCLAIMED,
      at: clock.now,
      attempt: 1,
      status: TaskStatus.QUEUED,
      workerId: 'worker-a',
      detail: 'S3 unavailable (SlowDown: reduce); attempt 1 not spent, not run',
    });
    const item = await rawItem('unclaim-ok');
    expect(item.statusAt).toBe(clock.now + 10_000);
    expect(item).not.toHaveProperty('leaseLost');
  });

  it('lets the next claim start the same attempt again', async () => {
    const { lease } = await createRunning('unclaim-next', 'worker-a');
    const returned = await store.unclaim(lease, 'KMS unavailable', outage);

    const next = await store.claim(returned, {
      workerId: 'worker-b',
      leaseMs: LEASE_MS,
      fresh: true,
    });

    expect(next.lease.attempt).toBe(1);
  });

  it("keeps a takeover a takeover: a fresh claim refuses it, a takeover's claim takes it", async () => {
    const { lease } = await createRunning('unclaim-takeover', 'worker-a');
    const returned = await store.unclaim(lease, 'KMS unavailable', { ...outage, takeover: true });

    const fresh = await rejection(
      store.claim(returned, { workerId: 'worker-b', leaseMs: LEASE_MS, fresh: true }),
    );
    const taken = await store.claim(returned, { workerId: 'worker-b', leaseMs: LEASE_MS });

    expect(fresh.current?.status).toBe(TaskStatus.QUEUED);
    expect(taken.lease.attempt).toBe(1);
  });

  it('refuses a stale lease with LeaseLostError and leaves the record alone', async () => {
    const { record, lease } = await createRunning('unclaim-stale');

    const err = await rejection(
      store.unclaim({ ...lease, leaseToken: 'nope' }, 'S3 unavailable', outage),
    );

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(record);
    expect(await current('unclaim-stale')).toEqual(record);
  });
});
