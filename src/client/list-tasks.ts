import { mapConcurrently, QUERY_CONCURRENCY } from '../concurrency.js';
import { TableSchema, TaskStatus } from '../constants.js';
import { ValidationError, type ValidationIssue } from '../errors.js';
import { fromItem, type TaskRecord } from '../store/record.js';
import { indexStreams, readStream, type StatusIndex } from './status-index.js';
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

/** A page of {@link listTasks}, newest first. */
export interface TaskListPage {
  readonly items: readonly TaskRecord[];
  /** Pass back as `cursor` for the next page; undefined on the last page. */
  readonly cursor: string | undefined;
}

const FILTER_KEYS = ['status', 'type', 'orderingKey', 'since', 'until', 'limit', 'cursor'];

/**
 * Lists tasks newest first across every shard (and status) asked for. Time is the status
 * index's sort key, `statusAt`: when the task last changed status; for a RUNNING task, when
 * its lease ends; for a QUEUED retry, when it is due; for a SCHEDULED task, its run time.
 *
 * Each `status#shard` partition is read newest first until it has `limit` matches (or ends);
 * the partitions' results are merged and the newest `limit` returned, so the order is exact.
 * A page costs up to `limit` entries read from every partition (statuses × shards).
 *
 * @throws ValidationError listing every bad filter.
 */
export async function listTasks(
  index: StatusIndex,
  filter: TaskListFilter = {},
): Promise<TaskListPage> {
  const { statuses, since, until, limit, after } = checkFilter(filter);
  const to = after === undefined ? until : Math.min(until ?? after.at, after.at);
  const streams = indexStreams(index, statuses);
  const pages = await mapConcurrently(
    streams,
    async (stream) => {
      const { items } = await readStream(
        index,
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
          ...(after === undefined ? {} : { keep: (item) => isBefore(item, after) }),
        },
      );
      return items;
    },
    QUERY_CONCURRENCY,
  );
  const merged = pages.flat().sort(newestFirst);
  const page = merged.slice(0, limit);
  const last = page[page.length - 1];
  const more = merged.length > limit && last !== undefined;
  return {
    items: page.map(fromItem),
    cursor: more
      ? encodeListCursor(sortTime(last), String(last[TableSchema.PARTITION_KEY]))
      : undefined,
  };
}

function sortTime(item: Record<string, unknown>): number {
  return Number(item[TableSchema.STATUS_INDEX_SORT_KEY]);
}

function newestFirst(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const dt = sortTime(b) - sortTime(a);
  if (dt !== 0) return dt;
  const ia = String(a[TableSchema.PARTITION_KEY]);
  const ib = String(b[TableSchema.PARTITION_KEY]);
  return ia < ib ? 1 : ia > ib ? -1 : 0;
}

/** True when `item` comes after the cursor's position in newest-first order. */
function isBefore(item: Record<string, unknown>, after: { at: number; id: string }): boolean {
  const at = sortTime(item);
  return at < after.at || (at === after.at && String(item[TableSchema.PARTITION_KEY]) < after.id);
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
