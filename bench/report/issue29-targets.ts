/**
 * Issue 29's targets ("cost and speed at the floor, second pass") that issue 14's table does
 * not already judge: the write units a retry adds, the shipped bundle's size, and rate limits
 * that reach their rate. The write units per task, both cost ratios (issue 14's retried one,
 * ≤ 1.7×, is the stricter) and cold init are issue 14's rows, with the same thresholds.
 */

import { type JudgedRate, judgeRates, RATE_USE_TARGET } from './rate-section.js';
import type { BenchResults } from './results.js';
import type { Headline, Target } from './targets.js';

/** Issue 29's largest shipped worker bundle, with the example's schemas: 150 KB. */
export const BUNDLE_TARGET_BYTES = 150 * 1024;
/** Issue 29's write units a retry may add to a successful task's. */
export const RETRY_UNITS_TARGET = 2;

/** Which of the bench's rate-limit runs a rate target judges. */
export interface RateTarget {
  readonly id: 'rateSlow' | 'rateFast' | 'rateFastEndToEnd';
  readonly limit: number;
  readonly intervalMs: number;
  readonly mode: 'end-to-end' | 'limiter';
  readonly name: string;
}

export const RATE_TARGETS: readonly RateTarget[] = [
  {
    id: 'rateSlow',
    limit: 5,
    intervalMs: 2_000,
    mode: 'end-to-end',
    name: 'Rate limit 5 per 2 s, end to end, 1 and 4 workers: fewest starts granted in a whole interval',
  },
  {
    id: 'rateFast',
    limit: 100,
    intervalMs: 1_000,
    mode: 'limiter',
    name: 'Rate limit 100 per second, the limiter alone, 1 and 4 workers: fewest starts granted in a whole interval',
  },
  {
    id: 'rateFastEndToEnd',
    limit: 100,
    intervalMs: 1_000,
    mode: 'end-to-end',
    name: 'Rate limit 100 per second, end to end on moto, 1 and 4 workers: fewest starts granted in a whole interval',
  },
];

const percent = (share: number) => `${Math.round(share * 100)}% of the limit`;

/** The bench's rate-limit runs of `target`'s limit and mode, judged (section 10). */
export function ratesOf(results: BenchResults, target: RateTarget): JudgedRate[] {
  return judgeRates(results).filter(
    ({ run }) =>
      run.limit === target.limit &&
      run.intervalMs === target.intervalMs &&
      run.mode === target.mode,
  );
}

/**
 * The smallest share of its limit that any run of `target`'s kind granted in a whole
 * interval after the first (the grants are the starts the limit allows; section 10);
 * undefined when the run has none of them.
 */
export function leastRateShare(results: BenchResults, target: RateTarget): number | undefined {
  const shares = ratesOf(results, target).map((judged) => judged.share);
  if (shares.length === 0 || shares.some((s) => s === undefined)) return undefined;
  return Math.min(...(shares as number[]));
}

/** Judges issue 29's own targets. */
export function judgeIssue29Targets(results: BenchResults, h: Headline): Target[] {
  const r = h.realistic;
  const retryUnits = r === undefined ? undefined : r.retried.writeUnits - r.successful.writeUnits;
  const bundle = results.pkg.bundles.worker.bytes;
  return [
    {
      id: 'retryUnits',
      name: 'DynamoDB write units a retry adds to a successful task, same scenario',
      today: '+4',
      threshold: `≤ +${RETRY_UNITS_TARGET}`,
      value: retryUnits === undefined ? undefined : `+${retryUnits.toFixed(2)}`,
      met: retryUnits === undefined ? undefined : retryUnits <= RETRY_UNITS_TARGET + 1e-9,
    },
    {
      id: 'bundle',
      name: "Worker bundle as shipped, with the example's schemas: what a cold start loads",
      today: '246 KB',
      threshold: '≤ 150 KB',
      value: `${(bundle / 1024).toFixed(1)} KB`,
      met: bundle <= BUNDLE_TARGET_BYTES,
    },
    ...RATE_TARGETS.map((target): Target => {
      const share = leastRateShare(results, target);
      return {
        id: target.id,
        name: target.name,
        today: target.limit === 5 ? 'at most 3 of 5 in any window' : '—',
        threshold: `≥ ${Math.round(RATE_USE_TARGET * 100)}% of the limit`,
        value: share === undefined ? undefined : percent(share),
        met: share === undefined ? undefined : share >= RATE_USE_TARGET,
      };
    }),
  ];
}
