/** RecordWrites.create: the first write of a task, and what a second create of the same id returns. */
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { DependencyStore } from '../../../src/store/dependency-store.js';
import { RecordWrites } from '../../../src/store/record-writes.js';
import { RepairWrites } from '../../../src/store/repair-writes.js';
import {
  clock,
  createRunning,
  current,
  newTask,
  rawItem,
  store,
  T0,
  useStoreTable,
} from '../../helpers/store-table.js';

useStoreTable('store-create');

describe('RecordWrites.create', () => {
  it('writes a PENDING task at attempt 0 with a submitted history entry', async () => {
    // Arrange
    const task = newTask('create-1', { orderingKey: 'customer-7', messageGroupId: 'customer-7' });

    // Act
    const { record, created } = await store.feature(RecordWrites).create(task);

    // Assert
    expect(created).toBe(true);
    expect(record).toMatchObject({
      id: 'create-1',
      type: 'report.build',
      status: TaskStatus.PENDING,
      payload: { month: '2030-01' },
      payloadHash: 'hash-1',
      attempt: 0,
      maxAttempts: 3,
      orderingKey: 'customer-7',
      messageGroupId: 'customer-7',
      generation: 1,
      timeoutMs: 30_000,
      createdAt: T0,
      updatedAt: T0,
      leaseToken: undefined,
    });
    expect(record.history).toEqual([
      { event: AuditEvent.SUBMITTED, at: T0, attempt: 0, status: TaskStatus.PENDING },
    ]);
    expect(await current('create-1')).toEqual(record);
  });

  it('is idempotent: a second create returns the existing record and overwrites nothing', async () => {
    const first = await store.feature(RecordWrites).create(newTask('create-2'));
    const before = await rawItem('create-2');
    clock.now += 5_000;

    const second = await store
      .feature(RecordWrites)
      .create(
        newTask('create-2', { type: 'other.type', payloadJson: '{"x":1}', payloadHash: 'hash-2' }),
      );

    expect(second.created).toBe(false);
    expect(second.record).toEqual(first.record);
    expect(await rawItem('create-2')).toEqual(before);
  });

  it('returns the existing record in its current state, not as first created', async () => {
    const { record } = await createRunning('create-3');

    const again = await store.feature(RecordWrites).create(newTask('create-3'));

    expect(again.created).toBe(false);
    expect(again.record.status).toBe(TaskStatus.RUNNING);
    expect(again.record.leaseToken).toBe(record.leaseToken);
  });

  describe('over a rolled-back record of the id (docs/adr/0065-a-revived-id-is-created-later.md)', () => {
    /** A delayed task whose enqueue could not create its schedule: ROLLED_BACK. */
    async function rolledBack(id: string) {
      const scheduled = newTask(id, { scheduled: true, runAt: clock.now + 3_600_000 });
      const { record } = await store.feature(RecordWrites).create(scheduled);
      const { discarded } = await store
        .feature(RepairWrites)
        .discard(record, 'schedule not created (test)');
      expect(discarded).toBe(true);
      return record;
    }

    it('creates the new record one millisecond after a rolled-back one of the same millisecond', async () => {
      const old = await rolledBack('create-revive-1');

      const { record, created } = await store
        .feature(RecordWrites)
        .create(newTask('create-revive-1'));

      expect(created).toBe(true);
      expect(record).toMatchObject({ status: TaskStatus.PENDING, createdAt: old.createdAt + 1 });
      expect(await current('create-revive-1')).toEqual(record);
    });

    it('so the old record is no longer there to be rolled back or confirmed', async () => {
      const old = await rolledBack('create-revive-2');
      await store.feature(RecordWrites).create(newTask('create-revive-2'));

      const giveUp = await store
        .feature(RepairWrites)
        .discard(old, 'schedule not created (the first enqueue, late)');
      const confirmation = await store.feature(RecordWrites).confirmSchedule(old);

      expect(giveUp.discarded).toBe(false);
      expect(giveUp.current?.createdAt).not.toBe(old.createdAt);
      expect(confirmation.outcome).toBe('gone');
      expect(await current('create-revive-2')).toMatchObject({ status: TaskStatus.PENDING });
    });

    it('creates later than a rolled-back record a producer with a faster clock wrote', async () => {
      clock.now += 10_000;
      const old = await rolledBack('create-revive-3');
      clock.now -= 10_000;

      const { record, created } = await store
        .feature(RecordWrites)
        .create(newTask('create-revive-3'));

      expect(created).toBe(true);
      expect(record.createdAt).toBe(old.createdAt + 1);
    });

    it('creates a task with parents later too', async () => {
      await store.feature(RecordWrites).create(newTask('create-revive-parent'));
      const old = await rolledBack('create-revive-4');

      const { record, created } = await store
        .feature(DependencyStore)
        .create(newTask('create-revive-4', { parents: ['create-revive-parent'] }));

      expect(created).toBe(true);
      expect(record).toMatchObject({ status: TaskStatus.WAITING, createdAt: old.createdAt + 1 });
    });
  });
});
