/** Terminal tasks expire from the table after the retention period. */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/observability/logger.js';
import { RecordWrites } from '../../../src/store/record-writes.js';
import { RepairWrites } from '../../../src/store/repair-writes.js';
import { TaskStore } from '../../../src/store/task-store.js';
import { SEEDED_STATUSES, seedSelection } from '../../helpers/store-selection.js';
import {
  clock,
  dynamodb,
  newTask,
  RETENTION_SECONDS,
  rawItem,
  T0,
  tableName,
  useStoreTable,
} from '../../helpers/store-table.js';

useStoreTable('store-ttl');

describe('TaskStore TTL', () => {
  it('sets expiresAt (epoch seconds) on SUCCEEDED and CANCELLED, and none on DEAD', async () => {
    const selection = await seedSelection('ttl');
    const expected = Math.floor(T0 / 1000) + RETENTION_SECONDS;

    const items = Object.fromEntries(
      await Promise.all(
        SEEDED_STATUSES.map(async (s) => [s, await rawItem(selection[s].record.id)] as const),
      ),
    );

    expect(items.SUCCEEDED?.expiresAt).toBe(expected);
    expect(items.CANCELLED?.expiresAt).toBe(expected);
    for (const status of ['PENDING', 'QUEUED', 'RUNNING', 'DEAD'] as const) {
      expect(items[status], status).not.toHaveProperty('expiresAt');
    }
  });

  it('honours a custom retention', async () => {
    const shortLived = new TaskStore({
      tableName,
      dynamodb,
      logger: silentLogger,
      clock: () => clock.now,
      retention: 60_000,
    });
    const { record } = await shortLived.feature(RecordWrites).create(newTask('ttl-custom'));

    await shortLived.feature(RepairWrites).cancel(record);

    expect((await rawItem('ttl-custom')).expiresAt).toBe(Math.floor(T0 / 1000) + 60);
  });
});
