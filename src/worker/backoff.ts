import type { RetryPolicy } from '../tasks/task-definition.js';

/**
 * Delay before the retry that follows `attempt` (1-based): exponential growth with full
 * jitter, capped. Full jitter spreads retries of tasks that failed together, so a
 * recovering dependency is not hit by a synchronized wave.
 *
 * delay = random(0, min(maxDelayMs, baseDelayMs × 2^(attempt−1)))
 */
export function retryDelayMs(
  attempt: number,
  policy: Required<RetryPolicy>,
  random: () => number = Math.random,
): number {
  // The exponent is bounded so the product stays finite (0 × 2^1024 would be NaN); the cap
  // applies long before 2^60.
  const exponent = Math.min(Math.max(0, attempt - 1), 60);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  return Math.floor(random() * ceiling);
}
