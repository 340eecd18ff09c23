/** The targets, judged against the run's figures. */
import type { Summary } from '../lib/stats.js';
import {
  coldStart,
  drift,
  processAt,
  retriedCost,
  scaling,
  successfulCost,
  type TaskCost,
} from './analysis.js';
import type { BenchResults } from './results.js';
import { dynamodbWrites, requests, sendsAndDeletes } from './tallies.js';

/** One target: the figure, the threshold, and whether it was met. */
export interface Target {
  readonly id:
    | 'overhead'
    | 'writes'
    | 'batching'
    | 'requests'
    | 'bundle'
    | 'coldInit'
    | 'flat'
    | 'memory';
  readonly name: string;
  readonly threshold: string;
  readonly value: string;
  readonly met: boolean;
}

/** Figures the targets and the summary share. */
export interface Headline {
  readonly largest: number;
  readonly smallest: number;
  readonly overhead: Summary;
  readonly tasklane: TaskCost;
  readonly powertools: TaskCost;
  readonly tasklaneRetried: TaskCost;
  readonly powertoolsRetried: TaskCost;
  readonly flat: number;
  readonly rawFlat: number;
  readonly memory: number;
  readonly rawMemory: number;
  /** Change of the heap retained after GC, smallest to largest size. */
  readonly retained: number;
  readonly coldInit: Summary;
}

/** Computes the shared headline figures. */
export function headline(results: BenchResults): Headline {
  const { sizes } = results.throughput;
  const rows = scaling(results);
  const largest = sizes[sizes.length - 1] ?? 0;
  return {
    largest,
    smallest: sizes[0] ?? 0,
    overhead: processAt(results, largest).ratio,
    tasklane: successfulCost(results, 'tasklane'),
    powertools: successfulCost(results, 'powertools'),
    tasklaneRetried: retriedCost(results, 'tasklane'),
    powertoolsRetried: retriedCost(results, 'powertools'),
    flat: drift(rows, (r) => r.process.tasklane),
    rawFlat: drift(rows, (r) => r.process.baseline),
    memory: drift(rows, (r) => r.rss.tasklane),
    rawMemory: drift(rows, (r) => r.rss.baseline),
    retained: drift(rows, (r) => r.heap.tasklane),
    coldInit: coldStart(results, (c) => c.totalMs).ratio,
  };
}

const fixed = (x: number, d = 2) => x.toFixed(d);

/** Judges every target. */
export function judgeTargets(results: BenchResults, h: Headline): Target[] {
  const t = h.tasklane.median.tally;
  const p = h.powertools.median.tally;
  const bundleBytes = results.pkg.bundles.worker.bytes;
  const pct = (x: number) => `${x >= 1 ? '+' : ''}${((x - 1) * 100).toFixed(0)}%`;
  return [
    {
      id: 'overhead',
      name: `End-to-end time vs the raw loop (${h.largest} tasks)`,
      threshold: '≤ 1.25×',
      value: `${fixed(h.overhead.median)}×`,
      met: h.overhead.median <= 1.25,
    },
    {
      id: 'writes',
      name: 'DynamoDB writes per successful task',
      threshold: '≤ 3',
      value: fixed(dynamodbWrites(t)),
      met: dynamodbWrites(t) <= 3,
    },
    {
      id: 'batching',
      name: `SQS sends and deletes per task (batch size ${results.profile.batchSize})`,
      threshold: '≤ 0.3',
      value: fixed(sendsAndDeletes(t)),
      met: sendsAndDeletes(t) <= 0.3,
    },
    {
      id: 'requests',
      name: 'AWS requests per successful task vs Powertools',
      threshold: 'fewer',
      value: `${fixed(requests(t))} vs ${fixed(requests(p))}`,
      met: requests(t) < requests(p),
    },
    {
      id: 'bundle',
      name: 'Worker bundle, minified, as shipped (AWS SDK from the runtime)',
      threshold: '≤ 250 KB',
      value: `${(bundleBytes / 1024).toFixed(0)} KB`,
      met: bundleBytes <= 250 * 1024,
    },
    {
      id: 'coldInit',
      name: 'Cold init vs Powertools (median paired ratio)',
      threshold: '≤ 1×',
      value: `${fixed(h.coldInit.median)}×`,
      met: h.coldInit.median <= 1,
    },
    {
      id: 'flat',
      name: `Per-task processing time, ${h.smallest} → ${h.largest} tasks`,
      threshold: 'within ±20%',
      value: pct(h.flat),
      met: Math.abs(h.flat - 1) <= 0.2,
    },
    {
      id: 'memory',
      name: `Worker peak RSS, ${h.smallest} → ${h.largest} tasks`,
      threshold: 'bounded, independent of N (±20%)',
      value: pct(h.memory),
      met: Math.abs(h.memory - 1) <= 0.2,
    },
  ];
}
