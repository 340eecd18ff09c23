/**
 * The `rateLimit` option of a task type: how many of its tasks may start per interval, kept
 * in a bucket item of the task table that every worker shares (ADR 0026,
 * docs/rate-limits.md). Validated here, at `defineTask`, so a bad limit fails at start-up
 * rather than in the worker.
 */
import type { ValidationIssue } from '../core/errors.js';

/** Option of `defineTask`: at most `limit` starts of the type in any `intervalMs`. */
export interface RateLimit {
  /** Task starts allowed per interval: an integer from 1 to 100000. */
  readonly limit: number;
  /** The interval, in ms: an integer from 1000 (1 s) to 86400000 (1 day). */
  readonly intervalMs: number;
  /**
   * One bucket per ordering key instead of one for the whole type; tasks without an ordering
   * key then share the type's bucket. @default false
   */
  readonly perKey?: boolean;
}

/** A validated rate limit, as a task definition carries it. */
export interface ResolvedRateLimit {
  readonly limit: number;
  readonly intervalMs: number;
  readonly perKey: boolean;
  /**
   * Milliseconds between two starts (`intervalMs / limit`): starts are spaced at least this
   * far apart, which keeps any window of `intervalMs` to `limit` starts.
   */
  readonly emissionMs: number;
}

export const RATE_LIMIT_BOUNDS = {
  MIN_LIMIT: 1,
  MAX_LIMIT: 100_000,
  MIN_INTERVAL_MS: 1_000,
  MAX_INTERVAL_MS: 86_400_000,
} as const;

const KEYS = ['limit', 'intervalMs', 'perKey'];

/**
 * Checks a `rateLimit` option, pushing an issue per problem (quoting what was received), and
 * returns the resolved limit when it is valid; undefined when absent or invalid.
 */
export function resolveRateLimit(
  issues: ValidationIssue[],
  given: unknown,
): ResolvedRateLimit | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    issues.push({
      path: 'rateLimit',
      message: `expected an object { limit, intervalMs, perKey? }, received ${describe(given)}`,
    });
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(given)) {
    if (!KEYS.includes(key)) {
      issues.push({
        path: `rateLimit.${key}`,
        message: `unknown option ${JSON.stringify(key)}; expected one of ${KEYS.join(', ')}`,
      });
    }
  }
  const { limit, intervalMs, perKey } = given as Partial<Record<string, unknown>>;
  const { MIN_LIMIT, MAX_LIMIT, MIN_INTERVAL_MS, MAX_INTERVAL_MS } = RATE_LIMIT_BOUNDS;
  if (!isIntegerIn(limit, MIN_LIMIT, MAX_LIMIT)) {
    issues.push({
      path: 'rateLimit.limit',
      message: `expected an integer from ${MIN_LIMIT} to ${MAX_LIMIT} (starts per interval), received ${describe(limit)}`,
    });
  }
  if (!isIntegerIn(intervalMs, MIN_INTERVAL_MS, MAX_INTERVAL_MS)) {
    issues.push({
      path: 'rateLimit.intervalMs',
      message: `expected an integer number of milliseconds from ${MIN_INTERVAL_MS} to ${MAX_INTERVAL_MS}, received ${describe(intervalMs)}`,
    });
  }
  if (perKey !== undefined && typeof perKey !== 'boolean') {
    issues.push({
      path: 'rateLimit.perKey',
      message: `expected a boolean, received ${describe(perKey)}`,
    });
  }
  if (issues.length > before) return undefined;
  const valid = given as RateLimit;
  return {
    limit: valid.limit,
    intervalMs: valid.intervalMs,
    perKey: valid.perKey ?? false,
    emissionMs: valid.intervalMs / valid.limit,
  };
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 80));
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
