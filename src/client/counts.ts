import { mapConcurrently, QUERY_CONCURRENCY } from '../concurrency.js';
import { TaskStatus } from '../constants.js';
import { ValidationError } from '../errors.js';
import { DEFAULT_LANE } from '../lanes.js';
import { countStream, indexStreams, readStream, type StatusIndex } from './status-index.js';

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
  /** Called after each partition of the index is counted, e.g. to drive a progress bar. */
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
   * reports none). A count reads every index entry of the counted statuses.
   */
  readonly readUnits: number;
}

/**
 * Counts tasks per status (and per type) with one Query per `status#shard` partition of the
 * status index: `Select: COUNT` for plain counts, the `type` attribute alone with `byType`.
 * Reads only, never a write per task. The cost grows with the table: see docs/operations.md.
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
  const streams = indexStreams(index, statuses);
  const byStatus = Object.fromEntries(statuses.map((s) => [s, 0])) as Record<TaskStatus, number>;
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
  await mapConcurrently(
    streams,
    async (stream) => {
      if (reads) {
        const projection = [
          ...(options.byType === true ? ['type'] : []),
          ...(options.byLane === true ? ['lane'] : []),
        ];
        const out = await readStream(index, { stream }, { projection });
        for (const item of out.items) {
          if (options.byType === true) tally(byType, String(item.type), stream.status);
          if (options.byLane === true) {
            const lane = typeof item.lane === 'string' ? item.lane : DEFAULT_LANE;
            tally(byLane, lane, stream.status);
          }
        }
        byStatus[stream.status] += out.items.length;
        readUnits += out.readUnits;
      } else {
        const out = await countStream(index, { stream });
        byStatus[stream.status] += out.count;
        readUnits += out.readUnits;
      }
      done += 1;
      options.onProgress?.(done, streams.length);
    },
    QUERY_CONCURRENCY,
  );
  const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
  return {
    byStatus,
    ...(options.byType === true ? { byType } : {}),
    ...(options.byLane === true ? { byLane } : {}),
    total,
    readUnits,
  };
}
