import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../../src/worker/backoff.js';

const policy = { maxAttempts: 10, baseDelayMs: 1_000, maxDelayMs: 60_000 } as const;
/** The largest value Math.random can return. */
const ALMOST_ONE = 1 - Number.EPSILON;

/** A deterministic stand-in for Math.random. */
const fixed = (value: number) => () => value;

describe('retryDelayMs', () => {
  it('returns 0 when the random draw is 0 (the bottom of the full-jitter range)', () => {
    const delays = [1, 2, 5, 10, 50].map((attempt) => retryDelayMs(attempt, policy, fixed(0)));

    expect(delays).toEqual([0, 0, 0, 0, 0]);
  });

  it('returns half the ceiling when the random draw is 0.5', () => {
    expect(retryDelayMs(1, policy, fixed(0.5))).toBe(500);
    expect(retryDelayMs(3, policy, fixed(0.5))).toBe(2_000);
  });

  it('stays strictly below the ceiling when the random draw is just under 1', () => {
    const ceilings = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000];

    const delays = ceilings.map((_, i) => retryDelayMs(i + 1, policy, fixed(ALMOST_ONE)));

    expect(delays).toEqual(ceilings.map((c) => c - 1));
  });

  it('uses the base delay as the ceiling of the first retry', () => {
    expect(retryDelayMs(1, policy, fixed(ALMOST_ONE))).toBe(policy.baseDelayMs - 1);
  });

  it('treats attempt 0 and negative attempts like attempt 1', () => {
    expect(retryDelayMs(0, policy, fixed(ALMOST_ONE))).toBe(999);
    expect(retryDelayMs(-3, policy, fixed(ALMOST_ONE))).toBe(999);
  });

  it('doubles the ceiling with every attempt until the cap', () => {
    const draw = fixed(0.5);

    const delays = [1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(attempt, policy, draw));

    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000]);
  });

  it('caps the ceiling at maxDelayMs', () => {
    expect(retryDelayMs(7, policy, fixed(0.5))).toBe(30_000);
    expect(retryDelayMs(8, policy, fixed(0.5))).toBe(30_000);
    expect(retryDelayMs(20, policy, fixed(ALMOST_ONE))).toBe(59_999);
  });

  it('stays finite and capped for attempts far beyond any maxAttempts', () => {
    for (const attempt of [100, 1_000, 1_025, 10_000, Number.MAX_SAFE_INTEGER]) {
      const delay = retryDelayMs(attempt, policy, fixed(ALMOST_ONE));

      expect(Number.isFinite(delay)).toBe(true);
      expect(delay).toBe(policy.maxDelayMs - 1);
    }
  });

  it('returns 0 for every attempt a task definition allows when baseDelayMs is 0', () => {
    // defineTask bounds maxAttempts to Defaults.MAX_ATTEMPTS_LIMIT (100); 1,000 is beyond it.
    const zeroBase = { ...policy, baseDelayMs: 0 };
    for (const attempt of [1, 2, 10, 100, 1_000]) {
      expect(retryDelayMs(attempt, zeroBase, fixed(ALMOST_ONE))).toBe(0);
    }
  });

  it('returns 0, not NaN, when baseDelayMs is 0 and 2^(attempt−1) overflows to Infinity', () => {
    // 2^1024 is Infinity, and 0 × Infinity would be NaN.
    const zeroBase = { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 60_000 };

    const delays = [1_025, 2_000, Number.MAX_SAFE_INTEGER].map((attempt) =>
      retryDelayMs(attempt, zeroBase, fixed(0.5)),
    );

    expect(delays).toEqual([0, 0, 0]);
  });

  it('reaches the cap for huge attempts even with a 1 ms base and the largest maxDelayMs', () => {
    // The smallest positive base needs the largest exponent to reach the cap.
    const slowest = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 43_200_000 };

    const delays = [1_025, 2_000, Number.MAX_SAFE_INTEGER].map((attempt) =>
      retryDelayMs(attempt, slowest, fixed(0.5)),
    );

    expect(delays).toEqual([21_600_000, 21_600_000, 21_600_000]);
  });

  it('returns 0 whenever maxDelayMs is 0', () => {
    expect(retryDelayMs(5, { ...policy, maxDelayMs: 0 }, fixed(ALMOST_ONE))).toBe(0);
  });

  it('returns whole milliseconds', () => {
    expect(Number.isInteger(retryDelayMs(2, policy, fixed(0.123456789)))).toBe(true);
  });

  it('stays in [0, ceiling) with the real Math.random', () => {
    for (let i = 0; i < 1_000; i++) {
      const delay = retryDelayMs(3, policy);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(4_000);
    }
  });
});
