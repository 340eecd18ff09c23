/** Per-task request tallies of measured runs, as the report shows them. */
import {
  EMPTY_SUFFIX,
  filterTally,
  mergeTallies,
  type OperationTally,
  scaleTally,
  type Tally,
} from '../lib/request-counter.js';
import { summarize } from '../lib/stats.js';
import type { EndToEndRun } from '../scenarios/end-to-end.js';

/** What one run's tasks cost each, producer and consumer together. */
export interface PerTask {
  /** Work requests per task; idle receives and one-off start-up calls left out. */
  readonly tally: Tally;
  /** Receives that came back empty (idle polling), per task. */
  readonly emptyReceives: number;
  /** Lambda invocations per task. */
  readonly invocations: number;
  /** Log bytes per task, producer and worker. */
  readonly logBytes: number;
}

/** Calls a consumer makes once per process, whatever the number of tasks. */
const START_UP = new Set(['SQS.GetQueueAttributes', 'SQS.GetQueueUrl']);

/** Per-task figures of one end-to-end run of `n` tasks. */
export function perTask(run: EndToEndRun, n: number): PerTask {
  const all = mergeTallies(run.enqueue.tally, run.consumer.tally);
  const empty = all[`SQS.ReceiveMessage${EMPTY_SUFFIX}`]?.requests ?? 0;
  return {
    tally: scaleTally(
      filterTally(all, (key) => !key.endsWith(EMPTY_SUFFIX) && !START_UP.has(key)),
      n,
    ),
    emptyReceives: empty / n,
    invocations: run.consumer.invocations / n,
    logBytes: (run.enqueue.logBytes + run.consumer.logBytes) / n,
  };
}

const FIELDS: readonly (keyof OperationTally)[] = [
  'requests',
  'billedRequests',
  'writeUnits',
  'indexWriteUnits',
  'readUnits',
];

/** The per-operation, per-field median over repetitions (a missing operation counts 0). */
export function medianPerTask(runs: readonly PerTask[]): PerTask {
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.tally)))].sort();
  const tally: Tally = {};
  for (const key of keys) {
    const entry = {} as OperationTally;
    for (const field of FIELDS) {
      entry[field] = summarize(runs.map((r) => r.tally[key]?.[field] ?? 0)).median;
    }
    tally[key] = entry;
  }
  const median = (pick: (r: PerTask) => number) => summarize(runs.map(pick)).median;
  return {
    tally,
    emptyReceives: median((r) => r.emptyReceives),
    invocations: median((r) => r.invocations),
    logBytes: median((r) => r.logBytes),
  };
}

/** Requests per task of a tally, optionally for one service. */
export function requests(tally: Tally, service?: 'SQS' | 'DynamoDB'): number {
  return Object.entries(tally)
    .filter(([key]) => service === undefined || key.startsWith(`${service}.`))
    .reduce((sum, [, t]) => sum + t.requests, 0);
}

/** DynamoDB write requests per task. */
export function dynamodbWrites(tally: Tally): number {
  return ['DynamoDB.PutItem', 'DynamoDB.UpdateItem', 'DynamoDB.DeleteItem'].reduce(
    (sum, key) => sum + (tally[key]?.requests ?? 0),
    0,
  );
}

/** SQS sends and deletes per task (what batching divides). */
export function sendsAndDeletes(tally: Tally): number {
  return Object.entries(tally)
    .filter(([key]) =>
      /^SQS\.(SendMessage|SendMessageBatch|DeleteMessage|DeleteMessageBatch)$/.test(key),
    )
    .reduce((sum, [, t]) => sum + t.requests, 0);
}
