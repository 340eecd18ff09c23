/** TaskStore.extendLease: the heartbeat that keeps a running task's lease live. */
import { describe, expect, it } from 'vitest';
import { TaskStatus } from '../../../src/core/constants.js';
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

useStoreTable('store-extend-lease');

describe('TaskStore.extendLease', () => {
  it('extends only the RUNNING task under its own lease; every other status loses', async () => {
    const selection = await seedSelection('extend');
    const before = await snapshot(selection);

    const outcomes = await attemptOnEach(selection, ({ record, lease }) =>
      store.extendLease(lease ?? forgedLease(record), LEASE_MS),
    );

    expect(outcomes).toEqual(expectedOutcomes([TaskStatus.RUNNING], ErrorCode.LEASE_LOST));
    expect(await changedSince(before)).toEqual([selection.RUNNING.record.id]);
  });

  it('moves the lease expiry forward, staying RUNNING, and writes no status index key (ADR 0052)', async () => {
    const { record: claimed, lease } = await createRunning('extend-ok', 'worker-a');
    clock.now += 50_000;

    const record = await store.extendLease(lease, LEASE_MS);

    expect(record).toMatchObject({
      status: TaskStatus.RUNNING,
      attempt: 1,
      leaseToken: claimed.leaseToken,
      leaseExpiresAt: clock.now + LEASE_MS,
      heartbeats: 1,
      lastHeartbeatAt: clock.now,
    });
    expect(record.history).toEqual(claimed.history);
    const item = await rawItem('extend-ok');
    expect(item.statusAt).toBeUndefined();
    expect(item.statusShard).toBeUndefined();
  });

  it('keeps a live, extended lease from being taken over', async () => {
    const { lease } = await createRunning('extend-hold', 'worker-a');
    clock.now += LEASE_MS - 1_000;
    const extended = await store.extendLease(lease, LEASE_MS);
    clock.now += 2_000; // Past the original expiry, inside the extended one.

    const err = await rejection(store.claim(extended, { workerId: 'worker-b', leaseMs: LEASE_MS }));

    expect(err.current).toEqual(extended);
  });

  it('refuses the old lease after a takeover, leaving the new lease alone', async () => {
    const first = await createRunning('extend-takeover', 'worker-a');
    clock.now += LEASE_MS + 1;
    const second = await store.claim(first.record, { workerId: 'worker-b', leaseMs: LEASE_MS });

    const err = await rejection(store.extendLease(first.lease, LEASE_MS));

    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err.current).toEqual(second.record);
    expect(await current('extend-takeover')).toEqual(second.record);
  });
});
