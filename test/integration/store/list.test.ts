/**
 * listTasks (src/store/queries.ts, behind `TaskClient.listByStatus`): the status index, paged
 * across its shards. The file's table holds only the 32 tasks seeded below.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { TaskStatus } from '../../../src/core/constants.js';
import { ValidationError } from '../../../src/core/errors.js';
import { type ListOptions, listTasks } from '../../../src/store/queries.js';
import { statusShard } from '../../../src/store/record.js';
import { RecordWrites } from '../../../src/store/record-writes.js';
import { markSentAsOlderVersionsDid } from '../../helpers/legacy-writes.js';
import {
  clock,
  dynamodb,
  LEASE_MS,
  newTask,
  rawItem,
  SHARDS,
  sentCommands,
  store,
  T0,
  tableName,
  useStoreTable,
} from '../../helpers/store-table.js';

/** One page of a status, as `TaskClient.listByStatus` reads it (src/store/queries.ts). */
const listStatus = (status: TaskStatus, options?: ListOptions) =>
  store.part((ctx) => listTasks(ctx, status, options));

useStoreTable('store-list');

describe('TaskStore.list', () => {
  const TASKS_PER_SHARD = 4;
  /** Ids by the status they were left in. */
  const byStatus: Record<'PENDING' | 'QUEUED' | 'RUNNING', string[]> = {
    PENDING: [],
    QUEUED: [],
    RUNNING: [],
  };
  /** statusAt of each PENDING task (its creation time). */
  const createdAt = new Map<string, number>();

  /** Ids `list-NNN` picked so every shard holds the same number of tasks. */
  function balancedIds(): string[] {
    const perShard = new Map<number, string[]>();
    for (let n = 0; [...perShard.values()].flat().length < SHARDS * TASKS_PER_SHARD; n++) {
      const id = `list-${String(n).padStart(3, '0')}`;
      const ids = perShard.get(statusShard(id, SHARDS)) ?? [];
      if (ids.length < TASKS_PER_SHARD) perShard.set(statusShard(id, SHARDS), [...ids, id]);
    }
    return [...perShard.values()].flat().sort();
  }

  async function listAll(
    status: TaskStatus,
    options: { limit?: number; before?: number } = {},
  ): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listStatus(status, { ...options, ...(cursor ? { cursor } : {}) });
      if (options.limit !== undefined) expect(page.items.length).toBeLessThanOrEqual(options.limit);
      for (const item of page.items) expect(item.status).toBe(status);
      ids.push(...page.items.map((item) => item.id));
      cursor = page.cursor;
      pages += 1;
      expect(pages).toBeLessThan(100);
    } while (cursor !== undefined);
    return { ids, pages };
  }

  /** The base64url JSON form of a cursor, for forging ones list never returned. */
  const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  /** The ValidationError a refused list call rejects with. */
  async function listRejection(options: { limit?: number; cursor?: string }) {
    const err = await listStatus(TaskStatus.QUEUED, options).then(
      () => {
        throw new Error('expected list to be refused');
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }

  beforeAll(async () => {
    // Arrange: 32 tasks, 4 per shard; a third left PENDING, a third QUEUED, a third RUNNING.
    const ids = balancedIds();
    for (const [n, id] of ids.entries()) {
      clock.now = T0 + n * 1_000;
      const { record } = await store.feature(RecordWrites).create(newTask(id));
      if (n % 3 === 0) {
        byStatus.PENDING.push(id);
        createdAt.set(id, clock.now);
        continue;
      }
      const queued = await markSentAsOlderVersionsDid(dynamodb, tableName, record, clock.now);
      if (n % 3 === 1) {
        byStatus.QUEUED.push(id);
        continue;
      }
      await store.claim(queued, { workerId: 'w', leaseMs: LEASE_MS });
      byStatus.RUNNING.push(id);
    }
  });

  it('spreads the seeded tasks over all 8 shards, and files no RUNNING one (ADR 0052)', async () => {
    const shards = new Set<string>();
    for (const id of [...byStatus.PENDING, ...byStatus.QUEUED, ...byStatus.RUNNING]) {
      shards.add(String(statusShard(id, SHARDS)));
    }
    const filed: string[] = [];
    for (const id of [...byStatus.PENDING, ...byStatus.QUEUED]) {
      filed.push(String((await rawItem(id)).statusShard).split('#')[1] ?? '');
    }
    const running = await Promise.all(byStatus.RUNNING.map(async (id) => await rawItem(id)));

    expect([...shards].sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    expect(filed).toEqual(
      [...byStatus.PENDING, ...byStatus.QUEUED].map((id) => String(statusShard(id, SHARDS))),
    );
    expect(running.map((item) => item.statusShard)).toEqual(byStatus.RUNNING.map(() => undefined));
  });

  it.each([TaskStatus.PENDING, TaskStatus.QUEUED, TaskStatus.RUNNING] as const)(
    'returns exactly the %s tasks, from every shard',
    async (status) => {
      const { ids } = await listAll(status);

      expect(ids.sort()).toEqual([...byStatus[status]].sort());
    },
  );

  it('returns an empty last page for a status no task is in', async () => {
    const page = await listStatus(TaskStatus.SUCCEEDED);

    expect(page).toEqual({ items: [], cursor: undefined });
  });

  it.each([1, 3, 5, 7, 10, 11, 100, 1_000])(
    'pages through every QUEUED and RUNNING task with limit %i, without duplicates or gaps',
    async (limit) => {
      const queued = await listAll(TaskStatus.QUEUED, { limit });
      const running = await listAll(TaskStatus.RUNNING, { limit });

      for (const [status, result] of [
        [TaskStatus.QUEUED, queued],
        [TaskStatus.RUNNING, running],
      ] as const) {
        expect(new Set(result.ids).size).toBe(result.ids.length);
        expect([...result.ids].sort()).toEqual([...byStatus[status]].sort());
        expect(result.pages).toBeGreaterThanOrEqual(Math.ceil(byStatus[status].length / limit));
      }
    },
  );

  it('keeps only entries whose status sort key is before `before`', async () => {
    // PENDING tasks are keyed by creation time.
    const cutoff = T0 + 16 * 1_000;
    const expected = byStatus.PENDING.filter((id) => (createdAt.get(id) ?? 0) < cutoff);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(byStatus.PENDING.length);

    const { ids } = await listAll(TaskStatus.PENDING, { before: cutoff, limit: 2 });

    expect(ids.sort()).toEqual(expected.sort());
  });

  it('lists RUNNING tasks with a Scan: RUNNING leaves the status index (ADR 0052)', async () => {
    sentCommands.length = 0;

    const all = await listAll(TaskStatus.RUNNING);

    expect(all.ids.sort()).toEqual([...byStatus.RUNNING].sort());
    expect(sentCommands).toContain('ScanCommand');
    expect(sentCommands).not.toContain('QueryCommand');
  });

  it('queries the status index, reads the listed items by key, and never scans', async () => {
    sentCommands.length = 0;

    await listAll(TaskStatus.PENDING);
    await listAll(TaskStatus.DEAD);

    expect(sentCommands.length).toBeGreaterThanOrEqual(2 * SHARDS);
    expect(new Set(sentCommands)).toEqual(new Set(['QueryCommand', 'BatchGetItemCommand']));
    expect(sentCommands).not.toContain('ScanCommand');
  });

  it('lists QUEUED from the index, then scans for the retrying tasks off it (ADR 0068)', async () => {
    sentCommands.length = 0;

    const queued = await listAll(TaskStatus.QUEUED, { limit: 3 });

    expect(queued.ids.sort()).toEqual([...byStatus.QUEUED].sort());
    // Every Query comes first (the index's part), then the Scan's pages.
    const firstScan = sentCommands.indexOf('ScanCommand');
    expect(firstScan).toBeGreaterThan(0);
    expect(sentCommands.slice(firstScan).every((c) => c === 'ScanCommand')).toBe(true);
  });

  it.each([0, -1, 1.5, 1_001, Number.NaN])(
    'rejects limit %s with a ValidationError on `limit`, sending no query',
    async (limit) => {
      sentCommands.length = 0;

      const err = await listRejection({ limit });

      expect(err.issues).toEqual([
        { path: 'limit', message: `expected an integer from 1 to 1000, received ${limit}` },
      ]);
      expect(sentCommands).toEqual([]);
    },
  );

  it.each([
    ['a string that is not base64url JSON', 'garbage'],
    ['JSON that is not an object', cursorOf(null)],
    ['no shard', cursorOf({ startKey: { pk: 'list-000' } })],
    ['a shard past the last one', cursorOf({ shard: 99 })],
    ['a negative shard', cursorOf({ shard: -1 })],
    ['a fractional shard', cursorOf({ shard: 1.5 })],
    ['a string startKey', cursorOf({ shard: 0, startKey: 'list-000' })],
    ['a null startKey', cursorOf({ shard: 0, startKey: null })],
  ])(
    'rejects a cursor with %s with a ValidationError on `cursor`, sending no query',
    async (_label, cursor) => {
      sentCommands.length = 0;

      const err = await listRejection({ cursor });

      expect(err.issues).toEqual([
        { path: 'cursor', message: 'expected a cursor returned by a previous list call' },
      ]);
      expect(sentCommands).toEqual([]);
    },
  );
});
