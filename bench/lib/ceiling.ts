/**
 * The executor's throughput ceiling set by its status index. Every task puts and deletes
 * entries under `STATUS#shard` partition keys, and DynamoDB takes at most 1,000 write units
 * per second on one partition key value. Tasks spread evenly over the shards, so the status
 * whose keys take the most index write units per task caps the executor at
 * `shards × 1,000 ÷ (index writes per task on that status × units per index write)`.
 */
import { statusOfPartition } from './index-writes.js';

/** DynamoDB's write throughput per partition key value, units per second. */
export const PARTITION_WCU_PER_SECOND = 1000;

/** The load the busiest status puts on its keys, per task. */
export interface StatusLoad {
  readonly status: string;
  /** Index entries written (put, deleted or updated) per task under this status's keys. */
  readonly writesPerTask: number;
  /** Write units per index write, from the measured entry sizes. */
  readonly unitsPerWrite: number;
}

/**
 * Tasks per second the index allows with `shards` shards; Infinity when no status is
 * written at all.
 */
export function executorCeiling(
  shards: number,
  writesPerTask: number,
  unitsPerWrite: number,
  partitionWcu: number = PARTITION_WCU_PER_SECOND,
): number {
  const units = writesPerTask * unitsPerWrite;
  return units <= 0 ? Number.POSITIVE_INFINITY : (shards * partitionWcu) / units;
}

/**
 * The status whose keys take the most index write units per task, from the units and the
 * writes counted per partition key value over `tasks` tasks; undefined when none were written.
 */
export function busiestStatus(
  unitsByPartition: Readonly<Record<string, number>>,
  writesByPartition: Readonly<Record<string, number>>,
  tasks: number,
): StatusLoad | undefined {
  const byStatus = new Map<string, { units: number; writes: number }>();
  for (const [partition, units] of Object.entries(unitsByPartition)) {
    const status = statusOfPartition(partition);
    const entry = byStatus.get(status) ?? { units: 0, writes: 0 };
    entry.units += units;
    entry.writes += writesByPartition[partition] ?? 0;
    byStatus.set(status, entry);
  }
  let busiest: StatusLoad | undefined;
  for (const [status, { units, writes }] of [...byStatus].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (writes === 0) continue;
    const load = { status, writesPerTask: writes / tasks, unitsPerWrite: units / writes };
    const total = (l: StatusLoad) => l.writesPerTask * l.unitsPerWrite;
    if (busiest === undefined || total(load) > total(busiest)) busiest = load;
  }
  return busiest;
}
