import { mapConcurrently, QUERY_CONCURRENCY } from '../aws/clients.js';
import { TaskStatus } from '../core/constants.js';
import { ValidationError } from '../core/errors.js';
import { DEFAULT_LANE } from '../settings/lanes.js';
import { isIndexed } from '../store/status-index-keys.js';
import type { StatusIndex } from '../store/task-store.js';

/** Options of `TaskClient.counts`. */
export interface CountOptions {
  /** Also break the counts down by task type. @default false */
  readonly byType?: boolean;
  /**
   * Also break the counts down by lane (docs/lanes.md), `default` for tasks without one. It
   * reads each entry as `byType` does, at the same cost (both together at no extra cost).
   * @default false
   */
  readonly byLane?: boolean;
  /** Count only these statuses. @default every status */
  readonly statuses?: readonly TaskStatus[];
  /**
   * Count the statuses the status index does not key (RUNNING, SUCCEEDED, CANCELLED,
   * ROLLED_BACK), and the QUEUED tasks waiting out a retry delay off it
   * (docs/adr/0068-a-retry-stays-off-the-index.md), with a Scan of the whole table, which
   * reads every item. With `false` the unkeyed statuses are left out of `byStatus` and named
   * in `notCounted`, and QUEUED counts the index's entries only (`retrying` is undefined).
   * @default true
   */
  readonly scan?: boolean;
  /**
   * Called after each partition of the index is counted, and after each page of the Scan
   * (which adds one step to `total` per page), e.g. to drive a progress bar.
   */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Tasks per status, from the status index. */
export interface TaskCounts {
  /** Every counted status, 0 when it has no task. */
  readonly byStatus: Readonly<Record<TaskStatus, number>>;
  /** With `byType`: type → status → count (statuses without tasks left out). */
  readonly byType?: Readonly<Record<string, Readonly<Partial<Record<TaskStatus, number>>>>>;
  /** With `byLane`: lane → status → count (statuses without tasks left out). */
  readonly byLane?: Readonly<Record<string, Readonly<Partial<Record<TaskStatus, number>>>>>;
  readonly total: number;
  /**
   * Read capacity units the count consumed, as DynamoDB reported them (0 where the endpoint
   * reports none). A count reads every index entry of the counted statuses, and the Scan
   * every item of the table.
   */
  readonly readUnits: number;
  /** The statuses counted by a Scan of the table (not keyed by the status index). */
  readonly scanned: readonly TaskStatus[];
  /** The statuses asked for and not counted (`scan: false`). */
  readonly notCounted: readonly TaskStatus[];
  /**
   * QUEUED tasks waiting out a retry delay off the status index, counted by the Scan and
   * included in `byStatus.QUEUED` (docs/adr/0068-a-retry-stays-off-the-index.md); undefined
   * when QUEUED was not asked for or nothing was scanned (`scan: false`).
   */
  readonly retrying?: number;
  /** With `byType` and `retrying`: those retrying tasks by type (types without any left out). */
  readonly retryingByType?: Readonly<Record<string, number>>;
}

/**
 * Counts tasks per status (and per type) with one Query per `status#shard` partition of the
 * status index: `Select: COUNT` for plain counts, the `type` attribute alone with `byType`.
 * The statuses the index does not key, and the QUEUED tasks off it (a retry's, ADR 0068),
 * are counted by one Scan of the table (unless `scan: false`). Reads only, never a write per
 * task. The cost grows with the table: see docs/status-index.md.
 */
export async function countTasks(
  index: StatusIndex,
  options: CountOptions = {},
): Promise<TaskCounts> {
  const statuses = options.statuses ?? Object.values(TaskStatus);
  const invalid = statuses.filter((s) => !(Object.values(TaskStatus) as string[]).includes(s));
  if (invalid.length > 0) {
    throw new ValidationError('counts options', [
      {
        path: 'statuses',
        message: `expected statuses among ${Object.values(TaskStatus).join(', ')}, received ${invalid.map((s) => JSON.stringify(s)).join(', ')}`,
      },
    ]);
  }
  const unkeyed = statuses.filter((status) => !isIndexed(status));
  const scanned = options.scan === false ? [] : unkeyed;
  const offIndexQueued = options.scan !== false && statuses.includes(TaskStatus.QUEUED);
  let retrying = 0;
  const retryingByType: Record<string, number> = {};
  const notCounted = options.scan === false ? unkeyed : [];
  const counted = statuses.filter((status) => !notCounted.includes(status));
  const streams = index.streams(counted.filter(isIndexed));
  const byStatus = Object.fromEntries(counted.map((s) => [s, 0])) as Record<TaskStatus, number>;
  const byType: Record<string, Partial<Record<TaskStatus, number>>> = {};
  const byLane: Record<string, Partial<Record<TaskStatus, number>>> = {};
  const tally = (
    table: Record<string, Partial<Record<TaskStatus, number>>>,
    key: string,
    status: TaskStatus,
  ) => {
    const row = table[key] ?? {};
    row[status] = (row[status] ?? 0) + 1;
    table[key] = row;
  };
  const reads = options.byType === true || options.byLane === true;
  let readUnits = 0;
  let done = 0;
  let total = streams.length;
  const projection = [
    ...(options.byType === true ? ['type'] : []),
    ...(options.byLane === true ? ['lane'] : []),
  ];
  const add = (status: TaskStatus, item: Record<string, unknown>) => {
    if (options.byType === true) tally(byType, String(item.type), status);
    if (options.byLane === true) {
      tally(byLane, typeof item.lane === 'string' ? item.lane : DEFAULT_LANE, status);
    }
  };
  await mapConcurrently(
    streams,
    async (stream) => {
      if (reads) {
        const out = await index.read({ stream }, { projection });
        for (const item of out.items) add(stream.status, item);
        byStatus[stream.status] += out.items.length;
        readUnits += out.readUnits;
      } else {
        const out = await index.count({ stream });
        byStatus[stream.status] += out.count;
        readUnits += out.readUnits;
      }
      done += 1;
      options.onProgress?.(done, total);
    },
    QUERY_CONCURRENCY,
  );
  if (scanned.length > 0 || offIndexQueued) {
    total += 1;
    for await (const page of index.scan(scanned, {
      projection: ['status', ...projection],
      offIndexQueued,
    })) {
      for (const item of page.items) {
        const status = item.status as TaskStatus;
        byStatus[status] += 1;
        if (status === TaskStatus.QUEUED) {
          retrying += 1;
          if (options.byType === true) {
            const type = String(item.type);
            retryingByType[type] = (retryingByType[type] ?? 0) + 1;
          }
        }
        add(status, item);
      }
      readUnits += page.readUnits;
      done += 1;
      if (page.nextKey !== undefined) total += 1;
      options.onProgress?.(done, total);
    }
  }
  return {
    byStatus,
    ...(options.byType === true ? { byType } : {}),
    ...(options.byLane === true ? { byLane } : {}),
    total: Object.values(byStatus).reduce((a, b) => a + b, 0),
    readUnits,
    scanned,
    notCounted,
    ...(offIndexQueued ? { retrying } : {}),
    ...(offIndexQueued && options.byType === true ? { retryingByType } : {}),
  };
}
