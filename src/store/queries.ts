/**
 * Reads through the sharded status index: a page at a time ({@link listTasks}) or every
 * matching task ({@link iterateTasks}). Callers reach them through `TaskStore.part`, so that
 * the worker's bundle, which lists nothing, leaves them out (docs/adr/0006-worker-bundle.md). Only a status the index does not key is scanned, and
 * the QUEUED tasks it leaves out (docs/adr/0068-a-retry-stays-off-the-index.md).
 */
import { TableSchema, TaskStatus } from '../core/constants.js';
import { ValidationError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { getItems } from './batch-get.js';
import {
  decodeCursor,
  decodeScanCursor,
  encodeCursor,
  encodeScanCursor,
  isScanCursor,
  SCAN_START_CURSOR,
} from './cursor.js';
import { fromItem, statusShardKey } from './record.js';
import { entryId, type IndexContext, partitionPages } from './status-index.js';
import { isIndexed } from './status-index-keys.js';
import { scanStatuses } from './status-scan.js';

/** What a query needs of the store. */
export type QueryContext = IndexContext;

/** A page of {@link listTasks}. */
export interface TaskPage {
  readonly items: readonly TaskRecord[];
  /** Pass back to get the next page; undefined on the last page. */
  readonly cursor: string | undefined;
}

/** Options of {@link listTasks}. */
export interface ListOptions {
  /** @default 100 */
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
  /** Only entries whose `statusAt` is earlier. */
  readonly before?: number | undefined;
  /**
   * Read the index's partitions of `status` even when it is no longer keyed, never a Scan:
   * the sweeper's pass over the RUNNING entries an earlier version left
   * (docs/adr/0052-running-leaves-the-status-index.md). @default false
   */
  readonly indexOnly?: boolean | undefined;
}

/**
 * Lists tasks in one status, shard by shard; within a shard, oldest `statusAt` first.
 * `before` keeps only entries whose `statusAt` (lease expiry for RUNNING, due time for a
 * retry, else last change) is earlier.
 *
 * The index projects only a few attributes, so the page's records are read from the table
 * (one strongly consistent BatchGetItem per 100); an entry whose task has moved to another
 * status since (the index lags its table) is left out. A status the index does not key
 * is listed by a Scan of the whole table (docs/adr/0021-sparse-status-index.md), where
 * `before` does not apply. A list of QUEUED goes on, after the index's entries, with a Scan
 * for the tasks waiting out a retry delay off the index
 * (docs/adr/0068-a-retry-stays-off-the-index.md), unless `indexOnly`.
 */
export async function listTasks(
  ctx: QueryContext,
  status: TaskStatus,
  options: ListOptions = {},
): Promise<TaskPage> {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new ValidationError('list options', [
      { path: 'limit', message: `expected an integer from 1 to 1000, received ${limit}` },
    ]);
  }
  if (!isIndexed(status) && options.indexOnly !== true) {
    return scanPage(ctx, [status], false, limit, options.cursor);
  }
  // QUEUED tasks waiting out a retry delay are off the index (ADR 0068): after the index's
  // part, a list of QUEUED goes on with a Scan for them, where `before` applies too.
  const offIndex = status === TaskStatus.QUEUED && options.indexOnly !== true;
  if (offIndex && isScanCursor(options.cursor)) {
    return scanPage(ctx, [], true, limit, options.cursor, options.before);
  }
  let { shard, startKey } = decodeCursor(options.cursor, ctx.statusShards);
  const entries: Record<string, unknown>[] = [];
  while (shard < ctx.statusShards && entries.length < limit) {
    const partition = statusShardKey(status, shard);
    const pages = partitionPages(
      ctx,
      { partition, before: options.before },
      { startKey, limit: () => limit - entries.length },
    );
    for await (const page of pages) {
      entries.push(...page.items);
      startKey = page.nextKey;
      if (entries.length >= limit) break;
    }
    if (startKey === undefined) shard += 1;
  }
  const done = shard >= ctx.statusShards;
  const ids = entries.map(entryId);
  const found = await getItems(ctx.doc, ctx.tableName, ids, { consistent: true });
  const items = ids.flatMap((id) => {
    const item = found.get(id);
    return item === undefined || item.status !== status ? [] : [fromItem(item)];
  });
  if (!done) return { items, cursor: encodeCursor(shard, startKey) };
  return { items, cursor: offIndex ? SCAN_START_CURSOR : undefined };
}

/**
 * A page of tasks in `statuses` (unkeyed), or of QUEUED tasks off the index (`offIndexQueued`,
 * due before `before` when given), from a Scan of the table.
 */
async function scanPage(
  ctx: QueryContext,
  statuses: readonly TaskStatus[],
  offIndexQueued: boolean,
  limit: number,
  cursor: string | undefined,
  before?: number | undefined,
): Promise<TaskPage> {
  const items: TaskRecord[] = [];
  let nextKey = decodeScanCursor(cursor);
  do {
    // Each page evaluates at most the items still missing, so a page never overshoots.
    const scan = scanStatuses(ctx.doc, ctx.tableName, statuses, {
      startKey: nextKey,
      pageSize: limit - items.length,
      offIndexQueued,
    });
    const page = (await scan.next()).value;
    if (page === undefined) break;
    const due = (item: Record<string, unknown>) =>
      before === undefined || Number(item[TableSchema.STATUS_INDEX_SORT_KEY]) < before;
    items.push(...page.items.filter(due).map(fromItem));
    nextKey = page.nextKey;
  } while (nextKey !== undefined && items.length < limit);
  return { items, cursor: nextKey === undefined ? undefined : encodeScanCursor(nextKey) };
}

/** Options of {@link iterateTasks}. */
export interface IterateOptions {
  readonly before?: number | undefined;
  readonly pageSize?: number | undefined;
  /** As {@link ListOptions.indexOnly}. */
  readonly indexOnly?: boolean | undefined;
}

/**
 * Every task in one status (before `before`, as for {@link listTasks}), a page at a time:
 * the next page is read only when the caller asks for it, so a caller with a time budget
 * can stop between pages.
 */
export async function* iterateTasks(
  ctx: QueryContext,
  status: TaskStatus,
  options: IterateOptions = {},
): AsyncGenerator<readonly TaskRecord[], void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await listTasks(ctx, status, {
      before: options.before,
      indexOnly: options.indexOnly,
      limit: options.pageSize,
      cursor,
    });
    yield page.items;
    cursor = page.cursor;
  } while (cursor !== undefined);
}
