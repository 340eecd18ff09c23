/**
 * What the console reads, through the SDK only. Each page asks for one of these; none of
 * them writes.
 */

import type { ScheduleSummary } from '../client/schedules.js';
import type { TaskClient } from '../client/task-client.js';
import { TaskStatus } from '../constants.js';
import type { TaskRecord } from '../store/record.js';

/** The task list's filters, as the CLI's `list` takes them. */
export interface TaskFilter {
  readonly status?: TaskStatus;
  readonly type?: string;
  readonly key?: string;
  /** Epoch ms: created at or after. */
  readonly since?: number;
  /** Epoch ms: created before. */
  readonly until?: number;
}

/** One page of the task list, newest first. */
export interface TaskListPage {
  readonly items: readonly TaskRecord[];
  readonly cursor: string | undefined;
}

/** The overview's figures. */
export interface Overview {
  readonly byStatus: Readonly<Record<TaskStatus, number>>;
  readonly byType: readonly { readonly type: string; readonly counts: Record<string, number> }[];
  readonly deadLetters: DeadLetterSummary | undefined;
  readonly recentDead: readonly TaskRecord[];
  readonly schedules: readonly ScheduleSummary[] | undefined;
  /** Why schedules could not be read (e.g. scheduling not configured). */
  readonly schedulesError: string | undefined;
}

/** The dead-letter queue at a glance. */
export interface DeadLetterSummary {
  readonly depth: number;
  /** Age of the oldest message looked at, in ms; undefined when the queue is empty. */
  readonly oldestAgeMs: number | undefined;
}

/** Statuses in lifecycle order, as the pages show them. */
export const STATUSES: readonly TaskStatus[] = Object.values(TaskStatus);

/** Reads every task of a status (for counting), a page at a time. */
async function allOf(client: TaskClient, status: TaskStatus): Promise<TaskRecord[]> {
  const out: TaskRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.list(status, { limit: 1000, ...(cursor ? { cursor } : {}) });
    out.push(...page.items);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return out;
}

/** Counts per status and per type, the DLQ, the newest DEAD tasks and the schedules. */
export async function readOverview(client: TaskClient): Promise<Overview> {
  const records = await Promise.all(STATUSES.map((s) => allOf(client, s)));
  const byStatus = Object.fromEntries(STATUSES.map((s, n) => [s, records[n]?.length ?? 0]));
  const types = new Map<string, Record<string, number>>();
  for (const record of records.flat()) {
    const counts = types.get(record.type) ?? {};
    counts[record.status] = (counts[record.status] ?? 0) + 1;
    types.set(record.type, counts);
  }
  const dead = newestFirst(records[STATUSES.indexOf(TaskStatus.DEAD)] ?? []).slice(0, 10);
  const schedules = await readSchedules(client);
  return {
    byStatus: byStatus as Record<TaskStatus, number>,
    byType: [...types.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, counts]) => ({ type, counts })),
    deadLetters: undefined,
    recentDead: dead,
    ...schedules,
  };
}

/** The schedules, or why they could not be read. */
export async function readSchedules(client: TaskClient): Promise<{
  schedules: readonly ScheduleSummary[] | undefined;
  schedulesError: string | undefined;
}> {
  try {
    return { schedules: await client.listSchedules(), schedulesError: undefined };
  } catch (err) {
    return { schedules: undefined, schedulesError: (err as Error).message };
  }
}

/** One page of tasks matching the filter, newest first across statuses and shards. */
export async function listTasks(
  client: TaskClient,
  filter: TaskFilter,
  page: { readonly limit: number; readonly cursor: string | undefined },
): Promise<TaskListPage> {
  const statuses = filter.status === undefined ? STATUSES : [filter.status];
  const records = (await Promise.all(statuses.map((s) => allOf(client, s)))).flat();
  const matching = newestFirst(records.filter((r) => matches(r, filter)));
  const start = page.cursor === undefined ? 0 : Number(page.cursor) || 0;
  const items = matching.slice(start, start + page.limit);
  const next = start + page.limit;
  return { items, cursor: next < matching.length ? String(next) : undefined };
}

function matches(record: TaskRecord, filter: TaskFilter): boolean {
  if (filter.type !== undefined && record.type !== filter.type) return false;
  if (filter.key !== undefined && record.orderingKey !== filter.key) return false;
  if (filter.since !== undefined && record.createdAt < filter.since) return false;
  if (filter.until !== undefined && record.createdAt >= filter.until) return false;
  return true;
}

function newestFirst(records: readonly TaskRecord[]): TaskRecord[] {
  return [...records].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
}
