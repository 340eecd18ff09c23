/**
 * TaskStore's parking transitions: kill with a parked key, ParkedKeys' redrive and release, and
 * the park items beside them (docs/adr/0024-parked-keys.md).
 */
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { ErrorCode } from '../../../src/core/errors.js';
import { ParkedKeys } from '../../../src/store/parked-keys.js';
import { RecordWrites } from '../../../src/store/record-writes.js';
import {
  attemptOnEach,
  changedSince,
  expectedOutcomes,
  rejection,
  seedSelection,
  snapshot,
} from '../../helpers/store-selection.js';
import { clock, createRunning, current, store, useStoreTable } from '../../helpers/store-table.js';

useStoreTable('store-park');

/** A DEAD task that parked `key`, with onDead 'park' written at enqueue. */
async function parkedTask(id: string, key: string) {
  const { lease } = await createRunning(id, 'worker-a', {
    orderingKey: key,
    messageGroupId: key,
    onDead: 'park',
  });
  return store.kill(lease, 'permanent error: closed', { parkedKey: key });
}

describe('TaskStore.kill with a parked key', () => {
  it('writes DEAD with parkedKey, and says so in the history', async () => {
    const dead = await parkedTask('park-kill', 'k1');

    expect(dead).toMatchObject({ status: TaskStatus.DEAD, parkedKey: 'k1', onDead: 'park' });
    expect(dead.history.at(-1)).toMatchObject({
      event: AuditEvent.DEAD,
      detail: "permanent error: closed; ordering key 'k1' parked",
    });
  });
});

describe('ParkedKeys.redrive', () => {
  it('moves only a DEAD task that parked this key; every other status loses', async () => {
    const selection = await seedSelection('redrive-parked');
    const before = await snapshot(selection);

    const outcomes = await attemptOnEach(selection, ({ record }) =>
      store.feature(ParkedKeys).redrive(record, 'k'),
    );

    // The seeded DEAD task died without parking: it is refused too.
    expect(outcomes).toEqual(expectedOutcomes([], ErrorCode.TRANSITION_REJECTED));
    expect(await changedSince(before)).toEqual([]);
  });

  it('moves it to QUEUED in place: attempts reset, a new generation, parkedKey gone', async () => {
    const dead = await parkedTask('park-redrive', 'k2');
    clock.now += 1_000;

    const queued = await store.feature(ParkedKeys).redrive(dead, 'k2', 'fixed');

    expect(queued).toMatchObject({
      status: TaskStatus.QUEUED,
      attempt: 0,
      generation: dead.generation + 1,
      deadReason: undefined,
      finishedAt: undefined,
    });
    expect(queued.parkedKey).toBeUndefined();
    expect(queued.history.at(-1)).toMatchObject({ event: AuditEvent.REDRIVEN, attempt: 0 });
    expect((await rejection(store.feature(ParkedKeys).redrive(dead, 'k2'))).code).toBe(
      ErrorCode.TRANSITION_REJECTED,
    );
  });

  it('clears a cancel request the dead run never honoured, as a redrive does', async () => {
    const { lease, record } = await createRunning('park-cancelled', 'worker-a', {
      orderingKey: 'k3',
      messageGroupId: 'k3',
      onDead: 'park',
    });
    await store.feature(RecordWrites).requestCancel(record, 'stop');
    const dead = await store.kill(lease, 'permanent error: closed', { parkedKey: 'k3' });

    const queued = await store.feature(ParkedKeys).redrive(dead, 'k3');

    expect(dead.cancelRequestedAt).toBeDefined();
    expect(queued).toMatchObject({ cancelRequested: false, cancelRequestedAt: undefined });
  });
});

describe('ParkedKeys.release', () => {
  it('keeps the task DEAD without parkedKey, refuses another key, and records key-released', async () => {
    const dead = await parkedTask('park-release', 'k3');

    const wrongKey = await rejection(store.feature(ParkedKeys).release(dead, 'other'));
    const released = await store.feature(ParkedKeys).release(dead, 'k3', 'gave up');

    expect(wrongKey.code).toBe(ErrorCode.TRANSITION_REJECTED);
    expect(released).toMatchObject({ status: TaskStatus.DEAD, deadReason: dead.deadReason });
    expect(released.parkedKey).toBeUndefined();
    expect(released.history.at(-1)).toMatchObject({
      event: AuditEvent.KEY_RELEASED,
      detail: "gave up; ordering key 'k3'",
    });
  });
});

describe('ParkedKeys', () => {
  it('records a park only while its task is still parked, lists it, and deletes it by task', async () => {
    const dead = await parkedTask('park-item', 'k4');
    const message = { receiptHandle: 'rh-1', queueArn: 'arn:q', sentAt: 5 };

    const recorded = await store.feature(ParkedKeys).record(dead, message);
    const listed = await store.feature(ParkedKeys).list();
    const wrongTask = await store.feature(ParkedKeys).delete('k4', 'someone-else');
    await store.feature(ParkedKeys).release(dead, 'k4');
    const afterRelease = await store.feature(ParkedKeys).record(dead, message);
    const deleted = await store.feature(ParkedKeys).delete('k4', dead.id);

    expect(recorded).toBe(true);
    expect(listed).toContainEqual({
      orderingKey: 'k4',
      lane: undefined,
      beforeLanes: false,
      heldAt: expect.any(Number),
      taskId: dead.id,
      taskType: dead.type,
      parkedAt: dead.finishedAt,
      receiptHandle: 'rh-1',
      queueArn: 'arn:q',
      messageSentAt: 5,
    });
    expect(wrongTask).toBe(false);
    expect(afterRelease).toBe(false);
    expect(deleted).toBe(true);
    expect(await store.feature(ParkedKeys).get('k4')).toBeUndefined();
    expect((await current(dead.id)).status).toBe(TaskStatus.DEAD);
  });
});
