/**
 * Per-task figures of an untimed measurement (the realistic scenario, the feature costs):
 * requests, write and read units, dollars, the status index's ceiling, and how closely
 * Tasklane's run-time meter agrees with the bench's count.
 */
import { Defaults } from '../../src/core/constants.js';
import { busiestStatus, executorCeiling, type StatusLoad } from '../lib/ceiling.js';
import { costPerMillion } from '../lib/cost.js';
import {
  EMPTY_SUFFIX,
  filterTally,
  mergeTallies,
  scaleTally,
  type Tally,
  totalOf,
} from '../lib/request-counter.js';
import type { MeasuredTasks } from '../scenarios/measure-tasks.js';
import { requests } from './tallies.js';

/** Calls made once per consumer, whatever the number of tasks. */
const START_UP = new Set(['SQS.GetQueueAttributes', 'SQS.GetQueueUrl']);

/** The event source mapping's own calls: billed, but not sent by the worker. */
const MAPPING = new Set(['SQS.ReceiveMessage', 'SQS.DeleteMessageBatch']);

/** What one task cost, producer and worker together. */
export interface TaskFigures {
  /** Per task; idle receives and start-up calls left out. */
  readonly tally: Tally;
  readonly requests: number;
  readonly tableWriteUnits: number;
  readonly indexWriteUnits: number;
  /** Table and index. */
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly invocations: number;
  /** Dollars per million tasks. */
  readonly cost: number;
}

const work = (key: string) => !key.endsWith(EMPTY_SUFFIX) && !START_UP.has(key);

/** Per-task figures of a measurement. */
export function taskFigures(m: MeasuredTasks): TaskFigures {
  const tally = scaleTally(filterTally(mergeTallies(m.produced, m.consumed), work), m.tasks);
  const dynamodb = filterTally(tally, (key) => key.startsWith('DynamoDB.'));
  const tableWriteUnits = totalOf(dynamodb, 'writeUnits');
  const indexWriteUnits = totalOf(dynamodb, 'indexWriteUnits');
  const invocations = m.invocations / m.tasks;
  return {
    tally,
    requests: requests(tally),
    tableWriteUnits,
    indexWriteUnits,
    writeUnits: tableWriteUnits + indexWriteUnits,
    readUnits: totalOf(dynamodb, 'readUnits'),
    invocations,
    cost: costPerMillion({ tally, lambdaInvocations: invocations }).total,
  };
}

/** The run-time meter beside the bench's count of the same requests. */
export interface MeterAgreement {
  readonly counted: number;
  readonly metered: number;
  /** |metered − counted| ÷ counted. */
  readonly difference: number;
}

/**
 * Compares the requests Tasklane metered (the producer's `costReport`, the worker's usage
 * metrics) with the bench's count of the requests they sent: every producer request, and
 * every worker request except the event source mapping's receives and deletes.
 */
export function meterAgreement(m: MeasuredTasks): MeterAgreement {
  const worker = filterTally(m.consumed, (key) => work(key) && !MAPPING.has(key));
  const counted = requests(m.produced) + requests(worker);
  const metered = m.metered.producerRequests + m.metered.workerRequests;
  return {
    counted,
    metered,
    difference: counted === 0 ? 0 : Math.abs(metered - counted) / counted,
  };
}

/** The shard count the target names. */
export const TARGET_SHARDS = 32;

/** The index's load per task and the ceiling it sets. */
export interface Ceiling {
  readonly load: StatusLoad | undefined;
  /** Tasks/s at the default shard count. */
  readonly atDefault: number;
  readonly defaultShards: number;
  /** Tasks/s at {@link TARGET_SHARDS}. */
  readonly atTarget: number;
}

/** The ceiling from the index writes a measurement counted. */
export function ceilingOf(m: MeasuredTasks): Ceiling {
  const load = busiestStatus(m.indexUnitsByPartition, m.indexWritesByPartition, m.tasks);
  const at = (shards: number) =>
    load === undefined
      ? Number.POSITIVE_INFINITY
      : executorCeiling(shards, load.writesPerTask, load.unitsPerWrite);
  return {
    load,
    atDefault: at(Defaults.STATUS_SHARDS),
    defaultShards: Defaults.STATUS_SHARDS,
    atTarget: at(TARGET_SHARDS),
  };
}
