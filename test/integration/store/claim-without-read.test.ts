/**
 * TaskStore.claim as the worker makes it: naming the task, the attempt it expects and the
 * message group, without reading the record first (docs/adr/0020-claim-without-pre-read.md).
 */
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { ErrorCode } from '../../../src/core/errors.js';
import { RecordWrites } from '../../../src/store/record-writes.js';
import { RepairWrites } from '../../../src/store/repair-writes.js';
import { decideClaim, isLeaseTakeover } from '../../../src/worker/claim-decision.js';
import { rejection } from '../../helpers/store-selection.js';
import {
  clock,
  createRunning,
  current,
  LEASE_MS,
  newTask,
  rawItem,
  sentCommands,
  store,
  useStoreTable,
} from '../../helpers/store-table.js';

useStoreTable('store-claim-unread');

const claimant = { workerId: 'w2', leaseMs: LEASE_MS } as const;

describe('TaskStore.claim without a read', () => {
  it('claims a new task in one UpdateItem and returns the record it wrote', async () => {
    // Arrange
    await store.feature(RecordWrites).create(newTask('unread-fresh'));
    sentCommands.length = 0;

    // Act
    const target = { id: 'unread-fresh', type: 'report.build', attempt: 0 };
    const { record, lease } = await store.claim(target, { ...claimant, fresh: true });

    // Assert
    expect(sentCommands).toEqual(['UpdateItemCommand']);
    expect(record).toMatchObject({ status: TaskStatus.RUNNING, attempt: 1, workerId: 'w2' });
    expect(record.payload).toEqual({ month: '2030-01' });
    expect(lease.attempt).toBe(1);
    expect(record.history.at(-1)).toMatchObject({ event: AuditEvent.CLAIMED, attempt: 1 });
    expect(await current('unread-fresh')).toEqual(record);
  });

  it('refuses a wrong expected attempt and returns the record to decide from', async () => {
    const { record: created } = await store.feature(RecordWrites).create(newTask('unread-guess'));
    const target = { id: 'unread-guess', type: 'report.build', attempt: 2 };

    const err = await rejection(store.claim(target, claimant));

    expect(err.code).toBe(ErrorCode.TRANSITION_REJECTED);
    expect(err.current).toEqual(created);
    expect(decideClaim(created, clock.now)).toEqual({ kind: 'claim' });
    expect(await current('unread-guess')).toEqual(created);
  });

  it('refuses a message whose type or group differs from the record, and a missing task', async () => {
    const { record: created } = await store.feature(RecordWrites).create(newTask('unread-forged'));

    const wrongType = await rejection(
      store.claim({ id: 'unread-forged', type: 'other.type', attempt: 0 }, claimant),
    );
    const wrongGroup = await rejection(
      store.claim(
        { id: 'unread-forged', type: 'report.build', attempt: 0, messageGroupId: 'jump' },
        claimant,
      ),
    );
    const missing = await rejection(
      store.claim({ id: 'unread-none', type: 'report.build', attempt: 0 }, claimant),
    );

    expect(wrongType.current).toEqual(created);
    expect(wrongGroup.current).toEqual(created);
    expect(missing.current).toBeUndefined();
    expect(await current('unread-forged')).toEqual(created);
  });

  it('refuses a task not yet due, which the decision defers', async () => {
    const { record: early } = await store
      .feature(RecordWrites)
      .create(newTask('unread-early', { runAt: clock.now + 5_000 }));

    const err = await rejection(store.claim(early, claimant));

    expect(err.current).toEqual(early);
    expect(decideClaim(early, clock.now)).toMatchObject({ kind: 'defer', delayMs: 5_000 });
  });

  it('marks a requeued task leaseLost: a fresh claim refuses it, a takeover claim clears it', async () => {
    // Arrange: attempt 1 lost its lease; the sweeper requeued the task.
    const { record: running } = await createRunning('unread-requeued', 'w1');
    clock.now += LEASE_MS + 1;
    const requeued = await store
      .feature(RepairWrites)
      .requeue(running, 'lease of attempt 1 expired', 'sweeper');

    // Act
    const fresh = await rejection(store.claim(requeued, { ...claimant, fresh: true }));
    const takeover = await store.claim(requeued, claimant);

    // Assert
    expect(requeued).toMatchObject({ status: TaskStatus.PENDING, leaseLost: true });
    expect(fresh.current).toEqual(requeued);
    expect(isLeaseTakeover(requeued)).toBe(true);
    expect(takeover.record).toMatchObject({ status: TaskStatus.RUNNING, attempt: 2 });
    expect(takeover.record.leaseLost).toBe(false);
    expect(await rawItem('unread-requeued')).not.toHaveProperty('leaseLost');
  });

  it('leaves an expired RUNNING task to a takeover claim only', async () => {
    const { record: running } = await createRunning('unread-expired', 'w1');
    clock.now += LEASE_MS + 1;

    const fresh = await rejection(store.claim(running, { ...claimant, fresh: true }));
    const takeover = await store.claim(running, claimant);

    expect(fresh.current).toEqual(running);
    expect(isLeaseTakeover(running)).toBe(true);
    expect(takeover.lease.attempt).toBe(2);
  });

  it('clears leaseLost on a redrive, which starts the task afresh', async () => {
    const { record: running } = await createRunning('unread-redriven', 'w1');
    clock.now += LEASE_MS + 1;
    const requeued = await store
      .feature(RepairWrites)
      .requeue(running, 'lease of attempt 1 expired', 'sweeper');
    const taken = await store.claim(requeued, claimant);
    const dead = await store.kill(taken.lease, 'permanent error: x');

    const redriven = await store.feature(RepairWrites).redrive(dead);

    expect(redriven).toMatchObject({ status: TaskStatus.PENDING, attempt: 0, leaseLost: false });
    expect((await store.claim(redriven, { ...claimant, fresh: true })).lease.attempt).toBe(1);
  });
});
