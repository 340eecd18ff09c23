/**
 * How well a rate limit used its budget: starts counted per interval from the first, and the
 * most in any window. Pure; the rate-limit scenario records the times.
 */

/** What a run's start times say about a limit of `limit` per `intervalMs`. */
export interface RateUse {
  /** Starts in each interval from the first start on; the last one is partial. */
  readonly perInterval: readonly number[];
  /**
   * The fewest starts in a whole interval after the first (the first fills as the workers
   * warm up; the last is cut off by the end of the backlog); undefined with fewer than three.
   */
  readonly leastAfterFirst: number | undefined;
  /** The most starts in any window of `intervalMs`, wherever it begins. */
  readonly mostInAnyWindow: number;
  /** Starts per second over the whole run, first start to last. */
  readonly perSecond: number;
}

/** Counts `times` (ms, any order) per interval of `intervalMs` from the earliest. */
export function rateUse(times: readonly number[], intervalMs: number): RateUse {
  const sorted = [...times].sort((a, b) => a - b);
  const first = sorted[0] ?? 0;
  const last = sorted[sorted.length - 1] ?? 0;
  const counts = Array.from({ length: Math.floor((last - first) / intervalMs) + 1 }, () => 0);
  for (const t of sorted) {
    const k = Math.floor((t - first) / intervalMs);
    counts[k] = (counts[k] ?? 0) + 1;
  }
  // Whole intervals after the first: 1 … length − 2 (the last holds the backlog's end).
  const judged = counts.slice(1, -1);
  return {
    perInterval: counts,
    leastAfterFirst: judged.length === 0 ? undefined : Math.min(...judged),
    mostInAnyWindow: mostInWindow(sorted, intervalMs),
    perSecond: sorted.length < 2 ? 0 : ((sorted.length - 1) * 1000) / (last - first),
  };
}

/** The most of the sorted `times` in any half-open window `[t, t + intervalMs)`. */
export function mostInWindow(sorted: readonly number[], intervalMs: number): number {
  let most = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while ((sorted[to] as number) - (sorted[from] as number) >= intervalMs) from++;
    most = Math.max(most, to - from + 1);
  }
  return most;
}
