/** Summary statistics of repeated measurements; every figure in BENCHMARKS.md is one. */

/** Median, min and max of a sample, with its size. */
export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

/**
 * Summarizes a sample. The median of an even-sized sample is the mean of the two middle
 * values.
 *
 * @throws RangeError on an empty sample or a non-finite value.
 */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new RangeError('cannot summarize an empty sample');
  if (values.some((v) => !Number.isFinite(v))) {
    throw new RangeError(`sample has a non-finite value: ${values.join(', ')}`);
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return {
    median,
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
    n: sorted.length,
  };
}

/**
 * Per-repetition ratios of two paired samples (`a[i] / b[i]`), summarized. Repetitions are
 * interleaved, so pairing them cancels most of the drift of a shared machine.
 *
 * @throws RangeError when the samples differ in size.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): Summary {
  if (a.length !== b.length) {
    throw new RangeError(`paired samples differ in size: ${a.length} and ${b.length}`);
  }
  return summarize(a.map((value, i) => value / (b[i] as number)));
}

/** Formats a number with a fixed number of significant decimals, e.g. 1234.5 → "1,234.5". */
export function formatNumber(value: number, decimals = 1): string {
  return value.toLocaleString('en-US', {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
}

/** "median (min–max)" with the given decimals, e.g. "1.92 (1.85–2.10)". */
export function formatSummary(summary: Summary, decimals = 1, unit = ''): string {
  const f = (v: number) => `${formatNumber(v, decimals)}${unit}`;
  return `${f(summary.median)} (${f(summary.min)}–${f(summary.max)})`;
}

/** A ratio as "1.92× (1.85–2.10)". */
export function formatRatio(summary: Summary, decimals = 2): string {
  return formatSummary(summary, decimals, '×');
}
