/**
 * What the console reads, through the SDK only: counts and lists from the status index, the
 * dead-letter queue's stats, the schedules. None of them writes.
 */

import type { ScheduleSummary, TaskClient, TaskListPage, TaskRecord } from 'tasklane';
import { ConfigurationError, TaskStatus } from 'tasklane';

export type { TaskListPage } from 'tasklane';

/** The task list's filters, as the CLI's `list` takes them. */
export interface TaskFilter {
  readonly status?: TaskStatus;
  readonly type?: string;
  readonly key?: string;
  /** Epoch ms: last status change at or after. */
  readonly since?: number;
  /** Epoch ms: last status change at or before. */
  readonly until?: number;
}

/** The overview's figures. */
export interface Overview {
  readonly byStatus: Readonly<Record<TaskStatus, number>>;
  readonly byType: readonly { readonly type: string; readonly counts: Record<string, number> }[];
  /** Undefined when the dead-letter queue could not be read; `deadLettersError` says why. */
  readonly deadLetters: DeadLetterSummary | undefined;
  readonly deadLettersError: string | undefined;
  readonly recentDead: readonly TaskRecord[];
  readonly schedules: readonly ScheduleSummary[] | undefined;
  /** Why schedules could not be read (e.g. scheduling not configured). */
  readonly schedulesError: string | undefined;
}

/** The dead-letter queue at a glance. */
export interface DeadLetterSummary {
  /** Messages waiting plus those in flight. */
  readonly depth: number;
  /** Age of the oldest message seen, in ms; undefined when none was seen. */
  readonly oldestAgeMs: number | undefined;
  /** Each lane's DLQ, when the executor has lanes (docs/lanes.md). */
  readonly byLane?: readonly {
    readonly lane: string;
    readonly depth: number;
    readonly oldestAgeMs: number | undefined;
  }[];
}

/** Statuses in lifecycle order, as the pages show them. */
export const STATUSES: readonly TaskStatus[] = Object.values(TaskStatus);

/** Counts per status and type, the DLQ, the newest DEAD tasks and the schedules, at once. */
export async function readOverview(client: TaskClient, now: number): Promise<Overview> {
  const [counts, deadLetters, recent, schedules] = await Promise.all([
    client.counts({ byType: true }),
    readDeadLetters(client, now),
    client.list({ status: TaskStatus.DEAD, limit: 10 }),
    readSchedules(client),
  ]);
  return {
    byStatus: counts.byStatus,
    byType: Object.entries(counts.byType ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, byStatus]) => ({ type, counts: { ...byStatus } })),
    ...deadLetters,
    recentDead: recent.items,
    ...schedules,
  };
}

async function readDeadLetters(
  client: TaskClient,
  now: number,
): Promise<{ deadLetters: DeadLetterSummary | undefined; deadLettersError: string | undefined }> {
  try {
    const stats = await client.deadLetters.stats({ sample: 10 });
    const oldestAgeMs = stats.oldestSentAt === undefined ? undefined : now - stats.oldestSentAt;
    const byLane =
      stats.byLane === undefined
        ? undefined
        : Object.entries(stats.byLane).map(([lane, s]) => ({
            lane,
            depth: s.visible + s.inFlight,
            oldestAgeMs: s.oldestSentAt === undefined ? undefined : now - s.oldestSentAt,
          }));
    return {
      deadLetters: {
        depth: stats.visible + stats.inFlight,
        oldestAgeMs,
        ...(byLane === undefined ? {} : { byLane }),
      },
      deadLettersError: undefined,
    };
  } catch (err) {
    // No DLQ URL configured, or the queue is missing: the page says which, instead of failing.
    if (err instanceof ConfigurationError)
      return { deadLetters: undefined, deadLettersError: err.message };
    throw err;
  }
}

/** The schedules, or why they could not be read. */
export async function readSchedules(client: TaskClient): Promise<{
  schedules: readonly ScheduleSummary[] | undefined;
  schedulesError: string | undefined;
}> {
  try {
    return { schedules: await client.schedules.list(), schedulesError: undefined };
  } catch (err) {
    return { schedules: undefined, schedulesError: (err as Error).message };
  }
}

/** One page of tasks matching the filter, newest first across statuses and shards. */
export function listTasks(
  client: TaskClient,
  filter: TaskFilter,
  page: { readonly limit: number; readonly cursor: string | undefined },
): Promise<TaskListPage> {
  return client.list({
    ...(filter.status === undefined ? {} : { status: filter.status }),
    ...(filter.type === undefined ? {} : { type: filter.type }),
    ...(filter.key === undefined ? {} : { orderingKey: filter.key }),
    ...(filter.since === undefined ? {} : { since: filter.since }),
    ...(filter.until === undefined ? {} : { until: filter.until }),
    limit: page.limit,
    ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
  });
}
