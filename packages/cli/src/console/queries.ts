/**
 * What the console reads, through the SDK only: counts and lists from the status index, the
 * dead-letter queue's stats, the schedules. None of them writes.
 */

import type {
  LaneState,
  ParkedKey,
  ScheduleDetails,
  ScheduleFiring,
  ScheduleSummary,
  TaskClient,
  TaskListPage,
  TaskRecord,
} from 'tasklane';
import { ConfigurationError, DEFAULT_LANE, TasklaneError, TaskStatus } from 'tasklane';

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
  /** Statuses left uncounted (their figure is 0): those a read without a Scan cannot count. */
  readonly notCounted: readonly TaskStatus[];
  /**
   * QUEUED tasks waiting out a retry delay off the status index, by type, when the Scan
   * counted them (included in the QUEUED figures); undefined otherwise
   * (docs/adr/0068-a-retry-stays-off-the-index.md).
   */
  readonly retryingByType?: Readonly<Record<string, number>> | undefined;
  readonly byType: readonly { readonly type: string; readonly counts: Record<string, number> }[];
  /** Undefined when the dead-letter queue could not be read; `deadLettersError` says why. */
  readonly deadLetters: DeadLetterSummary | undefined;
  readonly deadLettersError: string | undefined;
  readonly recentDead: readonly TaskRecord[];
  readonly schedules: readonly ScheduleSummary[] | undefined;
  /** Why schedules could not be read (e.g. scheduling not configured). */
  readonly schedulesError: string | undefined;
  /** Each lane's pause state, the default lane first; undefined when it could not be read. */
  readonly lanes: readonly LaneState[] | undefined;
  readonly lanesError: string | undefined;
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

/**
 * Counts per status and type, the DLQ, the newest DEAD tasks and the schedules, at once.
 * With `scan: false` the statuses the index does not key are not counted (no Scan of the
 * table): they are named in `notCounted`, with 0; and the dead-letter queue is not read (its
 * oldest message is found by a peek, which is a receive): `deadLetters` is undefined.
 */
export async function readOverview(
  client: TaskClient,
  now: number,
  options: { readonly scan?: boolean } = {},
): Promise<Overview> {
  const scan = options.scan !== false;
  const [counts, deadLetters, recent, schedules, lanes] = await Promise.all([
    client.counts({ byType: true, scan }),
    scan ? readDeadLetters(client, now) : { deadLetters: undefined, deadLettersError: undefined },
    client.list({ status: TaskStatus.DEAD, limit: 10 }),
    readSchedules(client),
    readLaneStates(client),
  ]);
  return {
    byStatus: counts.byStatus,
    notCounted: counts.notCounted,
    retryingByType: counts.retryingByType,
    byType: Object.entries(counts.byType ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, byStatus]) => ({ type, counts: { ...byStatus } })),
    ...deadLetters,
    recentDead: recent.items,
    ...schedules,
    ...lanes,
  };
}

/** The lanes' pause states (one read of their control items), or why they could not be read. */
export async function readLaneStates(client: TaskClient): Promise<{
  lanes: readonly LaneState[] | undefined;
  lanesError: string | undefined;
}> {
  try {
    return { lanes: await client.laneStates(), lanesError: undefined };
  } catch (err) {
    if (!(err instanceof TasklaneError)) throw err;
    return { lanes: undefined, lanesError: err.message };
  }
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

/** A schedule as its page shows it: the details and the tasks of its recent firings. */
export interface ScheduleView {
  readonly summary: ScheduleSummary;
  /** Undefined when it was deleted between the list and the read. */
  readonly details: ScheduleDetails | undefined;
  /** Its recent firings, newest first, with the task each created (undefined: none). */
  readonly recent: readonly {
    readonly firing: ScheduleFiring;
    readonly task: TaskRecord | undefined;
  }[];
}

/**
 * The schedules with their details and the tasks of their recent firings, read by id (the
 * id a firing gives its task), or why they could not be read.
 */
export async function readScheduleViews(client: TaskClient): Promise<{
  schedules: readonly ScheduleView[] | undefined;
  schedulesError: string | undefined;
}> {
  const { schedules, schedulesError } = await readSchedules(client);
  if (schedules === undefined) return { schedules, schedulesError };
  const views = await Promise.all(
    schedules.map(async (summary): Promise<ScheduleView> => {
      const details = await client.schedules.get(summary.name);
      const recent = await Promise.all(
        (details?.recentFirings ?? []).map(async (firing) => ({
          firing,
          task: await client.get(firing.taskId),
        })),
      );
      return { summary, details, recent };
    }),
  );
  return { schedules: views, schedulesError: undefined };
}

/** The parked keys, grouped by lane (the default lane first), or why they could not be read. */
export async function readParkedKeys(client: TaskClient): Promise<{
  byLane: readonly { readonly lane: string; readonly keys: readonly ParkedKey[] }[] | undefined;
  parkedError: string | undefined;
}> {
  let parked: ParkedKey[];
  try {
    parked = await client.parkedKeys();
  } catch (err) {
    if (!(err instanceof TasklaneError)) throw err;
    return { byLane: undefined, parkedError: err.message };
  }
  const lanes = new Map<string, ParkedKey[]>();
  for (const key of parked) {
    const lane = key.lane ?? DEFAULT_LANE;
    lanes.set(lane, [...(lanes.get(lane) ?? []), key]);
  }
  const byLane = [...lanes.entries()]
    .sort(([a], [b]) => (a === DEFAULT_LANE ? -1 : b === DEFAULT_LANE ? 1 : a.localeCompare(b)))
    .map(([lane, keys]) => ({ lane, keys }));
  return { byLane, parkedError: undefined };
}
