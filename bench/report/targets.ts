/**
 * Issue 14's targets ("cost and speed at the floor"), judged against one run's figures,
 * with the issue's "Today" column as it stands in the issue. Cost figures come from the
 * realistic scenario; speed from the emulator runs and the AWS-shaped mode.
 */

import { costPerMillion } from '../lib/cost.js';
import { pairedRatio, type Summary } from '../lib/stats.js';
import {
  coldStart,
  drift,
  enqueueAt,
  processAt,
  retriedCost,
  scaling,
  singleEnqueue,
  successfulCost,
  type TaskCost,
} from './analysis.js';
import {
  type Ceiling,
  ceilingOf,
  type MeterAgreement,
  meterAgreement,
  TARGET_SHARDS,
  type TaskFigures,
  taskFigures,
} from './measured-figures.js';
import type { BenchResults } from './results.js';

/** The targets, in the order; the last restates the 1.25× end-to-end target. */
export type TargetId =
  | 'requests'
  | 'writeUnits'
  | 'readUnits'
  | 'costSuccessful'
  | 'costRetried'
  | 'enqueueBatch'
  | 'singleEnqueue'
  | 'endToEnd'
  | 'coldInit'
  | 'ceiling'
  | 'meter'
  | 'endToEndSlow'
  // Issue 29's own (./issue29-targets.ts).
  | 'retryUnits'
  | 'bundle'
  | 'rateSlow'
  | 'rateFast'
  | 'rateFastEndToEnd';

/** One target: the figure, the "today", the threshold, and the run's outcome. */
export interface Target {
  readonly id: TargetId;
  readonly name: string;
  readonly today: string;
  readonly threshold: string;
  /** The measured figure; undefined when the run did not measure it. */
  readonly value: string | undefined;
  readonly met: boolean | undefined;
}

/** Figures the targets, the summary and the sections share. */
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
  /** The realistic scenario, when the run measured it. */
  readonly realistic: RealisticHeadline | undefined;
  /** End to end with 100 ms handlers, AWS-shaped: Tasklane ÷ raw, per repetition. */
  readonly slowEndToEnd: Summary | undefined;
  /** The enqueueBatch size judged (1,000 when the run has it, else its largest). */
  readonly enqueueSize: number;
}

/** The realistic scenario's figures beside Powertools'. */
export interface RealisticHeadline {
  readonly successful: TaskFigures;
  readonly retried: TaskFigures;
  readonly powertoolsCost: number;
  readonly powertoolsRetriedCost: number;
  readonly costRatio: number;
  readonly retriedCostRatio: number;
  readonly ceiling: Ceiling;
  readonly meter: MeterAgreement;
}

const costOf = (c: TaskCost) =>
  costPerMillion({ tally: c.median.tally, lambdaInvocations: c.median.invocations }).total;

function realisticHeadline(results: BenchResults): RealisticHeadline | undefined {
  const r = results.realistic;
  if (r === undefined) return undefined;
  const successful = taskFigures(r.successful);
  const retried = taskFigures(r.retried);
  const powertoolsCost = costOf(successfulCost(results, 'powertools'));
  const powertoolsRetriedCost = costOf(retriedCost(results, 'powertools'));
  return {
    successful,
    retried,
    powertoolsCost,
    powertoolsRetriedCost,
    costRatio: successful.cost / powertoolsCost,
    retriedCostRatio: retried.cost / powertoolsRetriedCost,
    ceiling: ceilingOf(r.successful),
    meter: meterAgreement(r.successful),
  };
}

/** Computes the shared headline figures. */
export function headline(results: BenchResults): Headline {
  const { sizes } = results.throughput;
  const rows = scaling(results);
  const largest = sizes[sizes.length - 1] ?? 0;
  const a = results.awsShaped;
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
    realistic: realisticHeadline(results),
    slowEndToEnd: a === undefined ? undefined : pairedRatio(a.endToEnd.tasklane, a.endToEnd.raw),
    enqueueSize: sizes.includes(1000) ? 1000 : largest,
  };
}

const fixed = (x: number, d = 2) => x.toFixed(d);
const times = (x: number) => `${fixed(x)}×`;
const tasksPerSecond = (x: number) =>
  Number.isFinite(x) ? `${Math.round(x).toLocaleString('en-US')} tasks/s` : 'unbounded';

/** Judges every target. */
export function judgeTargets(results: BenchResults, h: Headline): Target[] {
  const r = h.realistic;
  const ifRealistic = (
    pick: (r: RealisticHeadline) => number,
    show: (x: number) => string,
    ok: (x: number) => boolean,
  ) =>
    r === undefined
      ? { value: undefined, met: undefined }
      : { value: show(pick(r)), met: ok(pick(r)) };
  const enqueue = enqueueAt(results, h.enqueueSize).ratio.median;
  const single = singleEnqueue(results).ratio.median;
  return [
    {
      id: 'requests',
      name: 'AWS requests per successful task',
      today: '5.30',
      threshold: '≤ 3.30',
      ...ifRealistic(
        (x) => x.successful.requests,
        fixed,
        (x) => x <= 3.3 + 1e-9,
      ),
    },
    {
      id: 'writeUnits',
      name: 'DynamoDB write units per successful task, 300-byte payload, Lambda-length worker id',
      today: '16 (estimated)',
      threshold: '≤ 5',
      ...ifRealistic(
        (x) => x.successful.writeUnits,
        fixed,
        (x) => x <= 5 + 1e-9,
      ),
    },
    {
      id: 'readUnits',
      name: 'DynamoDB read units per task',
      today: '1',
      threshold: '0',
      ...ifRealistic(
        (x) => x.successful.readUnits,
        fixed,
        (x) => x === 0,
      ),
    },
    {
      id: 'costSuccessful',
      name: 'Cost per million successful tasks vs Powertools, same scenario',
      today: '4.87× (7× with a real payload)',
      threshold: '≤ 2.3× (stretch ≤ 1.5×)',
      ...ifRealistic(
        (x) => x.costRatio,
        times,
        (x) => x <= 2.3,
      ),
    },
    {
      id: 'costRetried',
      name: 'Cost per million retried tasks vs Powertools',
      today: '3.93×',
      threshold: '≤ 1.7×',
      ...ifRealistic(
        (x) => x.retriedCostRatio,
        times,
        (x) => x <= 1.7,
      ),
    },
    {
      id: 'enqueueBatch',
      name: `enqueueBatch ${h.enqueueSize.toLocaleString('en-US')} tasks vs raw SendMessageBatch, on the emulator`,
      today: '28×',
      threshold: '≤ 15×',
      value: times(enqueue),
      met: enqueue <= 15,
    },
    {
      id: 'singleEnqueue',
      name: 'Single enqueue vs raw SendMessage',
      today: '5.45×',
      threshold: '≤ 3.5×',
      value: times(single),
      met: single <= 3.5,
    },
    {
      id: 'endToEnd',
      name: `End to end, ${h.largest.toLocaleString('en-US')} no-op tasks, vs the raw loop, on the emulator`,
      today: '35×',
      threshold: '≤ 25×',
      value: times(h.overhead.median),
      met: h.overhead.median <= 25,
    },
    {
      id: 'coldInit',
      name: 'Cold init vs Powertools',
      today: '1.37×',
      threshold: '≤ 1.15×',
      value: times(h.coldInit.median),
      met: h.coldInit.median <= 1.15,
    },
    {
      id: 'ceiling',
      name: 'Executor ceiling (computed from the quotas and the shard count, documented)',
      today: '~4,000 tasks/s',
      threshold: `≥ 13,000 tasks/s at ${TARGET_SHARDS} shards`,
      ...ifRealistic(
        (x) => x.ceiling.atTarget,
        tasksPerSecond,
        (x) => x >= 13_000,
      ),
    },
    {
      id: 'meter',
      name: "Run-time cost metrics agree with the bench's count for the same tasks",
      today: '—',
      threshold: 'within 2%',
      ...ifRealistic(
        (x) => x.meter.difference,
        (x) => `${(x * 100).toFixed(1)}% apart`,
        (x) => x <= 0.02,
      ),
    },
    {
      id: 'endToEndSlow',
      name: 'End to end with 100 ms handlers vs the raw loop, AWS-shaped (the 1.25× target, restated)',
      today: '—',
      threshold: '≤ 1.25×',
      value: h.slowEndToEnd === undefined ? undefined : times(h.slowEndToEnd.median),
      met: h.slowEndToEnd === undefined ? undefined : h.slowEndToEnd.median <= 1.25,
    },
  ];
}
