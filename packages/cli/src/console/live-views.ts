/**
 * What the live channel (live.ts) reads for each page: the same queries and region templates
 * as the page's own route, so a live update shows exactly what a reload would.
 */
import type { TaskClient } from 'tasklane';
import { TaskStatus } from 'tasklane';
import type { ChartData, ChartSource } from './charts/chart-data.js';
import { findTasks, readListQuery } from './list-query.js';
import type { LiveView, LiveViews } from './live.js';
import { chartSummary } from './pages/charts.js';
import { deadListRegion } from './pages/dead.js';
import type { PageContext } from './pages/layout.js';
import { overviewRegions } from './pages/overview.js';
import { parkedRegion } from './pages/parked.js';
import { schedulesRegion } from './pages/schedules.js';
import { taskListRegion, taskRegions } from './pages/tasks.js';
import {
  listTasks,
  type Overview,
  readOverview,
  readParkedKeys,
  readScheduleViews,
} from './queries.js';
import { recordProblems } from './record-check.js';

/** What the views need. */
export interface LiveViewDeps {
  readonly client: TaskClient;
  readonly charts: ChartSource;
  readonly clock: () => number;
  readonly page: () => PageContext;
  /** The base interval, in ms; slower pages use a multiple of it. */
  readonly intervalMs: number;
}

/**
 * The overview's finished statuses (SUCCEEDED, CANCELLED, ROLLED_BACK) are counted by a Scan
 * of the table, and the dead-letter queue's oldest message is found by a peek (a receive): a
 * live overview does both at most once a minute, and shows the last figures in between.
 */
export const SCAN_EVERY_MS = 60_000;

/** How often the overview's charts are read again. */
export const CHARTS_EVERY_MS = 30_000;

/** The live view of each page the console has, by its address. */
export function liveViews(deps: LiveViewDeps): LiveViews {
  const { client, clock, intervalMs } = deps;
  return (url) => {
    const ctx = deps.page();
    const path = url.pathname;
    if (path === '/') return overviewView(deps);
    if (path === '/tasks') {
      const { query, filter, problems } = readListQuery(
        (n) => url.searchParams.get(n) ?? undefined,
        clock(),
      );
      if (problems.length > 0) return undefined;
      return {
        everyMs: intervalMs * 3,
        regions: async () => ({
          'task-list': taskListRegion(ctx, query, await findTasks(client, query, filter)),
        }),
      };
    }
    const task = /^\/tasks\/([^/]+)$/.exec(path)?.[1];
    if (task !== undefined) {
      const id = decodeURIComponent(task);
      return {
        everyMs: intervalMs,
        regions: async () => {
          const record = await client.get(id);
          // Gone, or not showable: the page already says which; nothing to swap in.
          if (record === undefined || recordProblems(record).length > 0) return {};
          return taskRegions(ctx, record);
        },
      };
    }
    if (path === '/dead') {
      const cursor = url.searchParams.get('cursor') || undefined;
      return {
        everyMs: intervalMs * 3,
        regions: async () => {
          const found = await listTasks(client, { status: TaskStatus.DEAD }, { limit: 50, cursor });
          return { 'dead-list': deadListRegion(ctx, found, cursor) };
        },
      };
    }
    if (path === '/schedules') {
      return {
        everyMs: intervalMs * 5,
        regions: async () => {
          const { schedules, schedulesError } = await readScheduleViews(client);
          return { schedules: schedulesRegion(ctx, schedules, schedulesError) };
        },
      };
    }
    if (path === '/parked') {
      return {
        everyMs: intervalMs * 3,
        regions: async () => {
          const { byLane, parkedError } = await readParkedKeys(client);
          return { parked: parkedRegion(ctx, byLane, parkedError) };
        },
      };
    }
    return undefined;
  };
}

function overviewView(deps: LiveViewDeps): LiveView {
  const { client, clock } = deps;
  let scanned: { readonly at: number; readonly overview: Overview } | undefined;
  let charts: ChartData | undefined;
  let chartsProblem: string | undefined;
  return {
    everyMs: deps.intervalMs,
    regions: async () => {
      const now = clock();
      const scan = scanned === undefined || now - scanned.at >= SCAN_EVERY_MS;
      const read = await readOverview(client, now, { scan });
      if (scan) scanned = { at: now, overview: read };
      const overview = scan || scanned === undefined ? read : withScanned(read, scanned.overview);
      return {
        ...overviewRegions(deps.page(), overview),
        ...(charts === undefined && chartsProblem === undefined
          ? {}
          : { 'chart-summary': chartSummary(charts, chartsProblem) }),
      };
    },
    charts: {
      everyMs: CHARTS_EVERY_MS,
      read: async () => {
        try {
          charts = await deps.charts.lastHour(clock());
          chartsProblem = undefined;
          return charts;
        } catch (err) {
          chartsProblem = `${(err as Error).name}: ${(err as Error).message}`;
          throw err;
        }
      },
    },
  };
}

/**
 * `read`, with the figures of the statuses it did not count, and the dead-letter queue it did
 * not read, taken from `scanned`.
 */
function withScanned(read: Overview, scanned: Overview): Overview {
  const missing = read.notCounted;
  const byStatus = { ...read.byStatus };
  for (const s of missing) byStatus[s] = scanned.byStatus[s];
  const types = new Map(read.byType.map((t) => [t.type, { ...t.counts }]));
  for (const t of scanned.byType) {
    const counts = types.get(t.type) ?? {};
    for (const s of missing) {
      const n = t.counts[s];
      if (n !== undefined) counts[s] = n;
    }
    types.set(t.type, counts);
  }
  // The index's QUEUED figure leaves out the tasks waiting out a retry delay (ADR 0068): the
  // last Scan's are added to it.
  if (read.retryingByType === undefined) {
    for (const [type, n] of Object.entries(scanned.retryingByType ?? {})) {
      byStatus[TaskStatus.QUEUED] = (byStatus[TaskStatus.QUEUED] ?? 0) + n;
      const counts = types.get(type) ?? {};
      counts[TaskStatus.QUEUED] = (counts[TaskStatus.QUEUED] ?? 0) + n;
      types.set(type, counts);
    }
  }
  return {
    ...read,
    deadLetters: scanned.deadLetters,
    deadLettersError: scanned.deadLettersError,
    byStatus,
    notCounted: [],
    byType: [...types.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, counts]) => ({ type, counts })),
  };
}
