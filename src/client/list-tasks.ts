import { mapConcurrently, QUERY_CONCURRENCY } from '../aws/clients.js';
import { TableSchema, TaskStatus } from '../core/constants.js';
import { ValidationError, type ValidationIssue } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { isIndexed } from '../store/status-index-keys.js';
import type { StatusIndex } from '../store/task-store.js';
import { checkOptionKeys } from './validate.js';

/** Filters of `TaskClient.list`; every one is optional and they combine with AND. */
export interface TaskListFilter {
  /** One status or several. @default every status */
  readonly status?: TaskStatus | readonly TaskStatus[] | undefined;
  /** Only tasks of this type. */
  readonly type?: string | undefined;
  /** Only tasks with this ordering key. */
  readonly orderingKey?: string | undefined;
  /** Only tasks whose index time (see {@link listTasks}) is at or after this instant. */
  readonly since?: Date | number | undefined;
  /** Only tasks whose index time is at or before this instant. */
  readonly until?: Date | number | undefined;
  /** Tasks per page, 1 to 1000. @default 50 */
  readonly limit?: number | undefined;
  /** The `cursor` of the previous page. */
  readonly cursor?: string | undefined;
}

/** Options of `TaskClient.listByStatus`. */
export interface StatusPageOptions {
  /** Tasks per page, 1 to 1000. @default 100 */
  readonly limit?: number | undefined;
  /** The `cursor` of the previous page. */
  readonly cursor?: string | undefined;
}

/** A page of tasks: of `TaskClient.list` (newest first) or `TaskClient.listByStatus`. */
export interface TaskListPage {
  readonly items: readonly TaskRecord[];
  /** Pass back as `cursor` for the next page; undefined on the last page. */
  readonly cursor: string | undefined;
}

const FILTER_KEYS = ['status', 'type', 'orderingKey', 'since', 'until', 'limit', 'cursor'];

/** A task as the list sorts it: its id and its time. */
interface Entry {
  readonly id: string;
  readonly at: number;
}

/**
 * Lists tasks newest first across every shard (and status) asked for. Time is the status
 * index's sort key, `statusAt`: when the task last changed status; for a QUEUED retry, when
 * it is due; for a SCHEDULED task, its run time.
 * For a status the index does not key (RUNNING, SUCCEEDED, CANCELLED, ROLLED_BACK), it is the
 * record's last change, `updatedAt`.
 *
 * Each `status#shard` partition is read newest first until it has `limit` matches (or ends);
 * the statuses the index does not key, and the QUEUED tasks waiting out a retry delay off
 * it (docs/adr/0068-a-retry-stays-off-the-index.md), are found by one Scan of the table (it
 * reads every item, docs/status-index.md). The results are merged and the newest `limit`
 * read from the table (BatchGetItem), so the order is exact; a task that has left the
 * statuses asked for since is left out of the page. A page costs up to `limit` entries read
 * from every partition (statuses × shards), plus the Scan when it lists an unkeyed status or
 * QUEUED.
 *
 * @throws ValidationError listing every bad filter.
 */
export async function listTasks(
  index: StatusIndex,
  filter: TaskListFilter = {},
): Promise<TaskListPage> {
  const { statuses, since, until, limit, after } = checkFilter(filter);
  const to = after === undefined ? until : Math.min(until ?? after.at, after.at);
  const streams = index.streams(statuses.filter(isIndexed));
  const pages = await mapConcurrently(
    streams,
    async (stream) => {
      const { items } = await index.read(
        {
          stream,
          from: since,
          to,
          newestFirst: true,
          equals: { type: filter.type, orderingKey: filter.orderingKey },
        },
        // One more than a page, to know whether more follow.
        {
          limit: limit + 1,
          ...(after === undefined ? {} : { keep: (item) => isBefore(indexEntry(item), after) }),
        },
      );
      return items.map(indexEntry);
    },
    QUERY_CONCURRENCY,
  );
  const unkeyed = statuses.filter((status) => !isIndexed(status));
  // QUEUED tasks waiting out a retry delay are off the index (ADR 0068): the Scan finds them.
  const offIndexQueued = statuses.includes(TaskStatus.QUEUED);
  const scanned =
    unkeyed.length === 0 && !offIndexQueued
      ? []
      : await scanNewest(index, unkeyed, offIndexQueued, limit + 1, (entry, item) => {
          return (
            (filter.type === undefined || item.type === filter.type) &&
            (filter.orderingKey === undefined || item.orderingKey === filter.orderingKey) &&
            (since === undefined || entry.at >= since) &&
            (to === undefined || entry.at <= to) &&
            (after === undefined || isBefore(entry, after))
          );
        });
  const merged = [...pages.flat(), ...scanned].sort(newestFirst);
  const page = merged.slice(0, limit);
  const last = page[page.length - 1];
  const more = merged.length > limit && last !== undefined;
  const found = await index.records(page.map((entry) => entry.id));
  return {
    items: page.flatMap(({ id }) => {
      const record = found.get(id);
      return record !== undefined && statuses.includes(record.status) ? [record] : [];
    }),
    cursor: more ? encodeListCursor(last.at, last.id) : undefined,
  };
}

function indexEntry(item: Record<string, unknown>): Entry {
  return {
    id: String(item[TableSchema.PARTITION_KEY]),
    at: Number(item[TableSchema.STATUS_INDEX_SORT_KEY]),
  };
}

/**
 * The newest `keep` matches among the tasks in `statuses`, and the QUEUED tasks off the index
 * with `offIndexQueued`, from a Scan of the table. A QUEUED task is placed by its due time,
 * as the index places the others; the rest by their last change.
 */
async function scanNewest(
  index: StatusIndex,
  statuses: readonly TaskStatus[],
  offIndexQueued: boolean,
  keep: number,
  matches: (entry: Entry, item: Record<string, unknown>) => boolean,
): Promise<Entry[]> {
  let newest: Entry[] = [];
  const sortKey = TableSchema.STATUS_INDEX_SORT_KEY;
  const projection = [
    TableSchema.PARTITION_KEY,
    'status',
    'type',
    'orderingKey',
    'updatedAt',
    sortKey,
  ];
  for await (const page of index.scan(statuses, { projection, offIndexQueued })) {
    for (const item of page.items) {
      const due = item.status === TaskStatus.QUEUED ? item[sortKey] : undefined;
      const at = typeof due === 'number' ? due : item.updatedAt;
      const entry = { id: String(item[TableSchema.PARTITION_KEY]), at: Number(at) };
      if (matches(entry, item)) newest.push(entry);
    }
    if (newest.length > keep * 4) newest = newest.sort(newestFirst).slice(0, keep);
  }
  return newest.sort(newestFirst).slice(0, keep);
}

function newestFirst(a: Entry, b: Entry): number {
  const dt = b.at - a.at;
  if (dt !== 0) return dt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** True when `entry` comes after the cursor's position in newest-first order. */
function isBefore(entry: Entry, after: Entry): boolean {
  return entry.at < after.at || (entry.at === after.at && entry.id < after.id);
}

function encodeListCursor(at: number, id: string): string {
  return Buffer.from(JSON.stringify({ at, id })).toString('base64url');
}

function decodeListCursor(
  cursor: string,
  issues: ValidationIssue[],
): { at: number; id: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const { at, id } = (parsed ?? {}) as { at?: unknown; id?: unknown };
    if (typeof at === 'number' && typeof id === 'string') return { at, id };
  } catch {
    // Reported below.
  }
  issues.push({ path: 'cursor', message: 'expected the cursor of a previous list page' });
  return undefined;
}

function instant(value: Date | number | undefined, path: string, issues: ValidationIssue[]) {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms === 'number' && Number.isFinite(ms)) return ms;
  issues.push({
    path,
    message: `expected a Date or epoch milliseconds, received ${String(value)}`,
  });
  return undefined;
}

function checkFilter(filter: TaskListFilter) {
  const issues: ValidationIssue[] = [];
  checkOptionKeys(issues, filter, FILTER_KEYS, 'filter');
  const all = Object.values(TaskStatus) as string[];
  const statuses = (
    filter.status === undefined
      ? all
      : Array.isArray(filter.status)
        ? filter.status
        : [filter.status]
  ) as TaskStatus[];
  const unknown = statuses.filter((s) => !all.includes(s));
  if (unknown.length > 0 || statuses.length === 0) {
    issues.push({
      path: 'status',
      message: `expected one or more of ${all.join(', ')}, received ${JSON.stringify(filter.status)}`,
    });
  }
  const limit = filter.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    issues.push({
      path: 'limit',
      message: `expected an integer from 1 to 1000, received ${limit}`,
    });
  }
  const since = instant(filter.since, 'since', issues);
  const until = instant(filter.until, 'until', issues);
  if (since !== undefined && until !== undefined && since > until) {
    issues.push({ path: 'since', message: 'expected since to be at or before until' });
  }
  const after = filter.cursor === undefined ? undefined : decodeListCursor(filter.cursor, issues);
  if (issues.length > 0) throw new ValidationError('list filter', issues);
  return { statuses, since, until, limit, after };
}
