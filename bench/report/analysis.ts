/**
 * The figures of the report, derived from raw results: each is a median with min and max
 * over repetitions, next to its baseline and the paired ratio (Tasklane ÷ baseline).
 */

import type { ColdStart } from '../lib/cold-start.js';
import { pairedRatio, type Summary, summarize } from '../lib/stats.js';
import type { EndToEndRun, System } from '../scenarios/end-to-end.js';
import type { BenchResults } from './results.js';
import { medianPerTask, type PerTask, perTask } from './tallies.js';

/** Tasklane against a baseline on one figure. */
export interface Comparison {
  readonly tasklane: Summary;
  readonly baseline: Summary;
  /** Tasklane's time (or size, or count) divided by the baseline's, per paired repetition. */
  readonly ratio: Summary;
}

function compare(
  tasklane: readonly number[],
  baseline: readonly number[],
  ratio?: Summary,
): Comparison {
  return {
    tasklane: summarize(tasklane),
    baseline: summarize(baseline),
    ratio: ratio ?? pairedRatio(tasklane, baseline),
  };
}

/** Runs of a system at a size. */
export function runsOf(results: BenchResults, system: System, n: number): EndToEndRun[] {
  return results.throughput.runs[system][n] ?? [];
}

const perSecond = (n: number) => (ms: number) => n / (ms / 1000);

/**
 * Throughput in tasks/s. The ratio is of times (Tasklane ÷ baseline), so above 1 means
 * Tasklane is slower, as in every other row.
 */
function throughput(t: readonly number[], b: readonly number[], n: number): Comparison {
  return compare(t.map(perSecond(n)), b.map(perSecond(n)), pairedRatio(t, b));
}

/** enqueueBatch against raw SendMessageBatch, at one size. */
export function enqueueAt(results: BenchResults, n: number): Comparison {
  const ms = (runs: EndToEndRun[]) => runs.map((r) => r.enqueue.ms);
  return throughput(ms(runsOf(results, 'tasklane', n)), ms(runsOf(results, 'raw', n)), n);
}

/** End-to-end processing against a baseline consumer, at one size. */
export function processAt(results: BenchResults, n: number, baseline: System = 'raw'): Comparison {
  const ms = (runs: EndToEndRun[]) => runs.map((r) => r.consumer.elapsedMs);
  return throughput(ms(runsOf(results, 'tasklane', n)), ms(runsOf(results, baseline, n)), n);
}

/** Single enqueue against SendMessage, in ms per call. */
export function singleEnqueue(results: BenchResults): Comparison {
  const { tasks, tasklane, raw } = results.single;
  return compare(
    tasklane.map((r) => r.ms / tasks),
    raw.map((r) => r.ms / tasks),
  );
}

/** Cold start against the Powertools bundle, on one timing. */
export function coldStart(results: BenchResults, pick: (c: ColdStart) => number): Comparison {
  const { tasklane, powertools } = results.pkg.coldStarts;
  return compare(tasklane.map(pick), powertools.map(pick));
}

/** Per-task figures of every repetition, and their medians. */
export interface TaskCost {
  readonly runs: readonly PerTask[];
  readonly median: PerTask;
}

function taskCost(runs: readonly EndToEndRun[], n: number): TaskCost {
  const per = runs.map((r) => perTask(r, n));
  return { runs: per, median: medianPerTask(per) };
}

/** What a successful task costs each system, measured at the Powertools size. */
export function successfulCost(results: BenchResults, system: System): TaskCost {
  const n = results.throughput.powertoolsSize;
  return taskCost(runsOf(results, system, n), n);
}

/** What a task that fails once, then succeeds, costs each system. */
export function retriedCost(results: BenchResults, system: 'tasklane' | 'powertools'): TaskCost {
  return taskCost(results.retries[system], results.retries.tasks);
}

/** One row of the scaling table. */
export interface ScalingRow {
  readonly n: number;
  /** Processing ms per task. */
  readonly process: Comparison;
  /** Enqueue ms per task. */
  readonly enqueue: Comparison;
  /** Peak RSS of the consumer process, MB. */
  readonly rss: Comparison;
  /** Heap the consumer still held after a full collection at the end, MB. */
  readonly heap: Comparison;
}

/** Per-task times and memory at every size. */
export function scaling(results: BenchResults): ScalingRow[] {
  return results.throughput.sizes.map((n) => {
    const t = runsOf(results, 'tasklane', n);
    const r = runsOf(results, 'raw', n);
    const mb = (runs: EndToEndRun[]) => runs.map((x) => x.consumer.maxRssKb / 1024);
    const heap = (runs: EndToEndRun[]) => runs.map((x) => x.consumer.heapAfterGcKb / 1024);
    return {
      n,
      process: compare(
        t.map((x) => x.consumer.elapsedMs / n),
        r.map((x) => x.consumer.elapsedMs / n),
      ),
      enqueue: compare(
        t.map((x) => x.enqueue.ms / n),
        r.map((x) => x.enqueue.ms / n),
      ),
      rss: compare(mb(t), mb(r)),
      heap: compare(heap(t), heap(r)),
    };
  });
}

/** Change of a median from the smallest to the largest size, as a ratio. */
export function drift(rows: readonly ScalingRow[], pick: (row: ScalingRow) => Summary): number {
  const first = rows[0];
  const last = rows[rows.length - 1];
  if (first === undefined || last === undefined) return Number.NaN;
  return pick(last).median / pick(first).median;
}

/** The mean time one request took in a consumer: its elapsed time over its requests. */
export function msPerRequest(runs: readonly EndToEndRun[]): Summary {
  return summarize(
    runs.map((r) => {
      const count = Object.values(r.consumer.tally).reduce((s, t) => s + t.requests, 0);
      return r.consumer.elapsedMs / count;
    }),
  );
}
