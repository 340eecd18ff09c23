/**
 * The task list's query string: read and checked (every problem at once), then run as a
 * filtered list or a search.
 */
import type { TaskClient, TaskStatus } from 'tasklane';
import { type ListQuery, PAGE_SIZES } from './pages/tasks.js';
import { listTasks, STATUSES, type TaskFilter } from './queries.js';
import { SEARCH_FIELDS, type SearchField, type SearchPage, searchTasks } from './search.js';

/** The list's page: a search when there is search text, else the filtered list. */
export async function findTasks(
  client: TaskClient,
  query: ListQuery,
  filter: TaskFilter,
): Promise<SearchPage> {
  const page = { limit: query.limit, cursor: query.cursor };
  if (query.q !== '') return searchTasks(client, { text: query.q, field: query.in }, filter, page);
  return { ...(await listTasks(client, filter, page)), searched: undefined };
}

const AGE = /^(\d+)\s*(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** An age (`30m`, `2h`, `7d`) before now, or an ISO time; undefined for an empty value. */
export function parseTime(value: string, now: number): number | undefined | Error {
  const text = value.trim();
  if (text === '') return undefined;
  const age = AGE.exec(text);
  if (age) return now - Number(age[1]) * UNIT_MS[age[2] as keyof typeof UNIT_MS];
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    return new Error(`expected an age such as 30m, 2h or 7d, or an ISO time; received "${text}"`);
  return ms;
}

/** Reads and validates the list's query string, reporting every problem at once. */
export function readListQuery(
  get: (name: string) => string | undefined,
  now: number,
): { query: ListQuery; filter: TaskFilter; problems: string[] } {
  const text = (name: string) => (get(name) ?? '').trim();
  const limit = Number(text('limit') || PAGE_SIZES[0]);
  const field = text('in') || 'any';
  const query: ListQuery = {
    // Ids and keys are matched as typed: only the ends' blanks are dropped.
    q: text('q'),
    in: (SEARCH_FIELDS as readonly string[]).includes(field) ? (field as SearchField) : 'any',
    status: text('status'),
    type: text('type'),
    key: text('key'),
    since: text('since'),
    until: text('until'),
    limit,
    cursor: text('cursor') || undefined,
  };
  const problems: string[] = [];
  if (!(SEARCH_FIELDS as readonly string[]).includes(field)) {
    problems.push(`in: expected one of ${SEARCH_FIELDS.join(', ')}; received "${field}"`);
  }
  if (query.status !== '' && !STATUSES.includes(query.status as TaskStatus)) {
    problems.push(`status: expected one of ${STATUSES.join(', ')}; received "${query.status}"`);
  }
  if (!(PAGE_SIZES as readonly number[]).includes(limit)) {
    problems.push(`limit: expected one of ${PAGE_SIZES.join(', ')}; received "${text('limit')}"`);
  }
  const since = parseTime(query.since, now);
  const until = parseTime(query.until, now);
  if (since instanceof Error) problems.push(`since: ${since.message}`);
  if (until instanceof Error) problems.push(`until: ${until.message}`);
  const filter: TaskFilter = {
    ...(query.status === '' ? {} : { status: query.status as TaskStatus }),
    ...(query.type === '' ? {} : { type: query.type }),
    ...(query.key === '' ? {} : { key: query.key }),
    ...(typeof since === 'number' ? { since } : {}),
    ...(typeof until === 'number' ? { until } : {}),
  };
  return { query, filter, problems };
}
