/**
 * The console's charts of the last hour: what they show, bucketed by minute, whichever
 * source drew them (CloudWatch metrics on AWS, the task records on an emulator).
 */

/** The length of the charts' window. */
export const CHART_WINDOW_MS = 3_600_000;

/** One bucket per minute, as CloudWatch's finest standard period. */
export const CHART_STEP_MS = 60_000;

/** The charts' series, one value per bucket; `null` where the source has no data point. */
export interface ChartSeries {
  /** Attempts started. */
  readonly started: readonly (number | null)[];
  /** Tasks that ended SUCCEEDED. */
  readonly succeeded: readonly (number | null)[];
  /** Attempts that failed (retried or not). */
  readonly failed: readonly (number | null)[];
  /** Tasks declared DEAD. */
  readonly dead: readonly (number | null)[];
  /** From enqueue (or due time) to start, ms: median and 95th percentile. */
  readonly waitP50: readonly (number | null)[];
  readonly waitP95: readonly (number | null)[];
  /** From start to end of an attempt, ms: median and 95th percentile. */
  readonly runP50: readonly (number | null)[];
  readonly runP95: readonly (number | null)[];
  /** Tasks waiting to start at the end of the bucket. */
  readonly depth: readonly (number | null)[];
}

/** The series names, in the order the charts draw them. */
export const SERIES_NAMES = [
  'started',
  'succeeded',
  'failed',
  'dead',
  'waitP50',
  'waitP95',
  'runP50',
  'runP95',
  'depth',
] as const satisfies readonly (keyof ChartSeries)[];

/** The charts' data: bucket start times and the series. */
export interface ChartData {
  /** Where the figures come from. */
  readonly source: 'cloudwatch' | 'records';
  /** The bucket starts (epoch ms), oldest first; the last bucket holds `now`. */
  readonly times: readonly number[];
  readonly stepMs: number;
  readonly series: ChartSeries;
  /** What the reader should know: a sample cut short, a metric with no data. */
  readonly notes: readonly string[];
}

/** Draws the charts of the last hour. */
export interface ChartSource {
  readonly kind: ChartData['source'];
  /** The hour before `now` (epoch ms), by minute. */
  lastHour(now: number): Promise<ChartData>;
}

/** The starts of the minute buckets of the hour before `now`, oldest first; 60 of them. */
export function bucketStarts(now: number): number[] {
  const last = Math.floor(now / CHART_STEP_MS) * CHART_STEP_MS;
  const count = CHART_WINDOW_MS / CHART_STEP_MS;
  return Array.from({ length: count }, (_, i) => last - (count - 1 - i) * CHART_STEP_MS);
}

/**
 * The nearest-rank percentile (`p` in 0–100) of `values`; null for none. The one CloudWatch
 * reports for a percentile statistic over raw values.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? null;
}

/** Sums a count series, treating missing points as nothing. */
export function total(series: readonly (number | null)[]): number {
  return series.reduce<number>((sum, v) => sum + (v ?? 0), 0);
}
