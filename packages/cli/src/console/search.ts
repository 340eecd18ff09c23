/**
 * Search on the task list: by id, type, ordering key or error text. A type or a key is a
 * filter of the status index (exact, paged as the list is); an id is read by key first
 * (exact match, one GetItem), and an id prefix (a schedule's `name@` firings) or an error's
 * text is matched on the records the list reads, newest first, a bounded number per page:
 * the page says how many it searched and offers the older ones.
 */
import type { TaskClient, TaskRecord } from 'tasklane';
import { listTasks, type TaskFilter, type TaskListPage } from './queries.js';

/** Where to look for the search text. */
export const SEARCH_FIELDS = ['any', 'id', 'type', 'key', 'error'] as const;

/** One of {@link SEARCH_FIELDS}. */
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** A search as the list's form asks it. */
export interface TaskSearch {
  readonly text: string;
  readonly field: SearchField;
}

/** Records read per search page, at most, when the text is matched on the records. */
export const SEARCH_WINDOW = 1000;

/** A page of search results. */
export interface SearchPage extends TaskListPage {
  /** How many records were read to find them (undefined when the index did the filtering). */
  readonly searched: number | undefined;
}

/** True when the record matches the text in the field (case-insensitive for errors). */
export function matches(record: TaskRecord, search: TaskSearch): boolean {
  const { text, field } = search;
  const inId = field === 'any' || field === 'id';
  const lower = text.toLowerCase();
  const error = [record.lastError?.name, record.lastError?.message, record.deadReason]
    .filter((v): v is string => typeof v === 'string')
    .join('\n')
    .toLowerCase();
  return (
    (inId && record.id.startsWith(text)) ||
    ((field === 'any' || field === 'type') && record.type === text) ||
    ((field === 'any' || field === 'key') && record.orderingKey === text) ||
    ((field === 'any' || field === 'error') && error.includes(lower))
  );
}

/**
 * One page of the tasks that match the search and the filters, newest first. `cursor` is
 * that of the list read so far: the next page searches older tasks.
 */
export async function searchTasks(
  client: TaskClient,
  search: TaskSearch,
  filter: TaskFilter,
  page: { readonly limit: number; readonly cursor: string | undefined },
): Promise<SearchPage> {
  if (search.field === 'type' || search.field === 'key') {
    const narrowed =
      search.field === 'type' ? { ...filter, type: search.text } : { ...filter, key: search.text };
    return { ...(await listTasks(client, narrowed, page)), searched: undefined };
  }
  const exact =
    page.cursor === undefined && search.field !== 'error'
      ? await exactId(client, search.text, filter)
      : undefined;
  const items: TaskRecord[] = exact === undefined ? [] : [exact];
  let cursor = page.cursor;
  let searched = 0;
  do {
    const read = await listTasks(client, filter, {
      limit: Math.min(SEARCH_WINDOW - searched, 500),
      cursor,
    });
    searched += read.items.length;
    for (const r of read.items) {
      if (r.id !== exact?.id && matches(r, search)) items.push(r);
    }
    cursor = read.cursor;
  } while (cursor !== undefined && items.length < page.limit && searched < SEARCH_WINDOW);
  // Every match of the pages read: cutting the last page short would skip its other matches.
  return { items, cursor, searched };
}

/** The task whose id is the text, when it exists and passes the status filter. */
async function exactId(
  client: TaskClient,
  id: string,
  filter: TaskFilter,
): Promise<TaskRecord | undefined> {
  if (id === '' || id.length > 512) return undefined;
  const record = await client.get(id);
  if (record === undefined) return undefined;
  if (filter.status !== undefined && record.status !== filter.status) return undefined;
  return record;
}
