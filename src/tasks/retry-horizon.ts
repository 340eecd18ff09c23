import { Defaults } from '../core/constants.js';

/** What bounds a task type's retries; see {@link retryHorizonMs}. */
export interface RetryBounds {
  readonly maxAttempts: number;
  /** Cap of any retry delay, in ms. */
  readonly maxDelayMs: number;
  /** The handler's timeout (one attempt's longest run), in ms. */
  readonly timeoutMs: number;
}

/** How the figures are called where they were set, for the error message. */
export interface HorizonNames {
  readonly maxDelay: string;
  readonly timeout: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The longest a task can keep its first message: every attempt runs for at most its timeout
 * and then waits at most the capped delay, `maxAttempts × (maxDelayMs + timeoutMs)`. Retries
 * reuse that message (its visibility is changed, it is not sent again), and SQS counts a
 * message's retention from its first send, so this must stay well under the retention.
 */
export function retryHorizonMs(bounds: RetryBounds): number {
  return bounds.maxAttempts * (bounds.maxDelayMs + bounds.timeoutMs);
}

/** The longest retry horizon a queue with this retention accepts: its {@link Defaults.RETRY_HORIZON_SHARE}. */
export function maxRetryHorizonMs(queueRetentionMs: number): number {
  return Math.floor(queueRetentionMs * Defaults.RETRY_HORIZON_SHARE);
}

/**
 * Checks that the retry horizon stays well under the queue's message retention (at most
 * half of it), so the message still exists for the last retry, with room for the time the
 * task waits behind its ordering key.
 *
 * @returns what was expected, naming both figures, or undefined when the bounds fit.
 */
export function retryHorizonIssue(
  bounds: RetryBounds,
  queueRetentionMs: number = Defaults.QUEUE_RETENTION_SECONDS * 1000,
  names: HorizonNames = { maxDelay: 'maxDelayMs', timeout: 'timeout' },
): string | undefined {
  const horizon = retryHorizonMs(bounds);
  const limit = maxRetryHorizonMs(queueRetentionMs);
  if (Number.isFinite(horizon) && horizon <= limit) return undefined;
  return (
    `expected the retry horizon, maxAttempts × (${names.maxDelay} + ${names.timeout}) = ` +
    `${bounds.maxAttempts} × (${bounds.maxDelayMs} + ${bounds.timeoutMs}) ms = ${horizon} ms ` +
    `(${days(horizon)}), to be at most ${Defaults.RETRY_HORIZON_SHARE * 100}% of the queue's ` +
    `message retention of ${queueRetentionMs} ms (${days(queueRetentionMs)}), ${limit} ms: ` +
    `lower maxAttempts, ${names.maxDelay} or ${names.timeout}`
  );
}

function days(ms: number): string {
  return `${(ms / DAY_MS).toFixed(2)} days`;
}
