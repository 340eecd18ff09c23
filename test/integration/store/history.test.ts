/** The audit history and the status index, across every transition. */
import { describe, expect, it } from 'vitest';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import type { TaskRecord } from '../../../src/core/record.js';
import { statusShard } from '../../../src/store/record.js';
import { RecordWrites } from '../../../src/store/record-writes.js';
import { RepairWrites } from '../../../src/store/repair-writes.js';
import { isIndexed } from '../../../src/store/status-index-keys.js';
import type { Lease } from '../../../src/store/task-store.js';
import { markSentAsOlderVersionsDid } from '../../helpers/legacy-writes.js';
import { rejection, SEEDED_STATUSES, seedSelection } from '../../helpers/store-selection.js';
import {
  clock,
  createRunning,
  current,
  dynamodb,
  LEASE_MS,
  newTask,
  rawItem,
  SHARDS,
  store,
  tableName,
  useStoreTable,
} from '../../helpers/store-table.js';

useStoreTable('store-history');

describe('TaskStore history and status index', () => {
  it('appends exactly one history entry and re-keys the status index on every transition', async () => {
    // Arrange
    const id = 'history-life';
    const shard = statusShard(id, SHARDS);
    const steps: Array<[string, () => Promise<TaskRecord>]> = [];
    let lease: Lease | undefined;
    const held = () => {
      if (lease === undefined) throw new Error('no lease');
      return lease;
    };
    steps.push([
      'markSent (an older version)',
      async () => markSentAsOlderVersionsDid(dynamodb, tableName, await current(id), clock.now),
    ]);
    steps.push([
      'claim',
      async () => {
        const out = await store.claim(await current(id), { workerId: 'w1', leaseMs: LEASE_MS });
        lease = out.lease;
        return out.record;
      },
    ]);
    steps.push(['retry', () => store.retry(held(), { name: 'E', message: 'm' }, 0)]);
    steps.push([
      'claim again',
      async () => {
        const out = await store.claim(await current(id), { workerId: 'w2', leaseMs: LEASE_MS });
        lease = out.lease;
        return out.record;
      },
    ]);
    steps.push(['extendLease', () => store.extendLease(held(), LEASE_MS)]);
    steps.push(['complete', () => store.complete(held(), '{"ok":1}')]);
    const created = (await store.feature(RecordWrites).create(newTask(id))).record;
    let previous = created.history;
    expect(previous).toHaveLength(1);
    expect((await rawItem(id)).statusShard).toBe(`PENDING#${shard}`);

    for (const [name, step] of steps) {
      clock.now += 1_000;

      // Act
      const record = await step();

      // Assert: a heartbeat is counted, not added to the history.
      if (name === 'extendLease') {
        expect(record.history, name).toEqual(previous);
        expect(record, name).toMatchObject({ heartbeats: 1, lastHeartbeatAt: clock.now });
        continue;
      }
      expect(record.history, name).toHaveLength(previous.length + 1);
      expect(record.history.slice(0, previous.length), name).toEqual(previous);
      expect(record.history.at(-1)?.status, name).toBe(record.status);
      expect(record.history.at(-1)?.at, name).toBe(clock.now);
      expect(record.history.at(-1)?.attempt, name).toBe(record.attempt);
      const item = await rawItem(id);
      // Only the statuses the sweeper and operators act on are keyed (ADR 0021).
      expect(item.statusShard, name).toBe(
        isIndexed(record.status) ? `${record.status}#${shard}` : undefined,
      );
      expect(item.updatedAt, name).toBe(clock.now);
      previous = record.history;
    }

    const final = await current(id);
    expect(final.history.map((h) => [h.event, h.attempt, h.status, h.workerId])).toEqual([
      [AuditEvent.SUBMITTED, 0, TaskStatus.PENDING, undefined],
      [AuditEvent.SENT, 0, TaskStatus.QUEUED, undefined],
      [AuditEvent.CLAIMED, 1, TaskStatus.RUNNING, 'w1'],
      [AuditEvent.RETRY_SCHEDULED, 1, TaskStatus.QUEUED, 'w1'],
      [AuditEvent.CLAIMED, 2, TaskStatus.RUNNING, 'w2'],
      [AuditEvent.SUCCEEDED, 2, TaskStatus.SUCCEEDED, 'w2'],
    ]);
  });

  it('keys every seeded keyed status in the index under the same shard, and no other', async () => {
    const selection = await seedSelection('index');

    for (const status of SEEDED_STATUSES) {
      const { id } = selection[status].record;
      const item = await rawItem(id);

      expect(item.status).toBe(status);
      if (isIndexed(status)) {
        expect(item.statusShard).toBe(`${status}#${statusShard(id, SHARDS)}`);
        expect(typeof item.statusAt).toBe('number');
      } else {
        expect(item).not.toHaveProperty('statusShard');
        expect(item).not.toHaveProperty('statusAt');
      }
    }
  });

  it('adds nothing to the history when a transition is refused', async () => {
    const { record, lease } = await createRunning('history-refused');

    await rejection(store.complete({ ...lease, leaseToken: 'x' }, '{}'));
    await rejection(store.feature(RepairWrites).cancel(record));
    await rejection(markSentAsOlderVersionsDid(dynamodb, tableName, record, clock.now));

    expect((await current('history-refused')).history).toEqual(record.history);
  });
});
