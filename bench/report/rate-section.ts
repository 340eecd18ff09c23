/** Section 10 of the report: whether rate limits reach their rate. Prose in templates/rate-limits.md. */
import { type RateUse, rateUse } from '../lib/rate-windows.js';
import type { RateLimitRun } from '../scenarios/rate-limits.js';
import { num, table } from './markdown.js';
import type { BenchResults } from './results.js';
import { templateFile } from './template.js';

const rateTemplate = templateFile('rate-limits.md');
/** A judged interval must hold at least this share of the limit (issue 29). */
export const RATE_USE_TARGET = 0.9;

/** What one run shows: its grants' and its starts' use of the limit. */
export interface JudgedRate {
  readonly run: RateLimitRun;
  readonly granted: RateUse;
  readonly started: RateUse;
  /** The fewest grants in a judged interval over the limit; undefined when none was judged. */
  readonly share: number | undefined;
}

/** Judges every run of the scenario. */
export function judgeRates(results: BenchResults): JudgedRate[] {
  return (results.rateLimits?.runs ?? []).map((run) => {
    const granted = rateUse(run.grants, run.intervalMs);
    const least = granted.leastAfterFirst;
    return {
      run,
      granted,
      started: rateUse(run.starts, run.intervalMs),
      share: least === undefined ? undefined : least / run.limit,
    };
  });
}

/** The label of a run's limit: "5 per 2 s". */
export function limitLabel(run: Pick<RateLimitRun, 'limit' | 'intervalMs'>): string {
  const seconds = run.intervalMs / 1000;
  return `${run.limit} per ${seconds === 1 ? 'second' : `${seconds} s`}`;
}

const modeLabel = (run: RateLimitRun) => (run.mode === 'limiter' ? 'limiter alone' : 'end to end');

/** Section 10. */
export function rateSection(results: BenchResults): string {
  const judged = judgeRates(results);
  if (judged.length === 0) return rateTemplate('missing');
  const rows = judged.map(({ run, granted, started, share }) => [
    limitLabel(run),
    modeLabel(run),
    String(run.workers),
    String(run.tasks),
    granted.perInterval.join(', '),
    `${granted.leastAfterFirst ?? '–'}${share === undefined ? '' : ` (${Math.round(share * 100)}%)`}`,
    String(granted.mostInAnyWindow),
    started.perInterval.join(', '),
    String(started.mostInAnyWindow),
    num(granted.perSecond, 1),
    num(run.bucketWrites / run.tasks, 2),
    num(run.deferrals / run.tasks, 2),
  ]);
  return rateTemplate('section', {
    batchSize: results.profile.batchSize,
    concurrency: results.profile.concurrency,
    inFlight: results.profile.batchSize * results.profile.concurrency,
    table: table(
      [
        'Limit',
        'Run',
        'Workers',
        'Tasks',
        'Granted per interval',
        'Fewest granted, whole interval after the first',
        'Most granted in any window',
        'Started per interval',
        'Most started in any window',
        'Granted per second',
        'Bucket writes per task',
        'Deferrals per task',
      ],
      rows,
    ),
  });
}
