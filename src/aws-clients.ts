/**
 * Configuration for the AWS SDK clients Tasklane creates itself (injected clients are used
 * as given).
 *
 * Retries happen in exactly one layer: the SDK's. Its `standard` mode retries throttling and
 * transient errors with capped exponential backoff and jitter, and a retry quota that stops
 * a fleet from amplifying an outage. `adaptive` mode adds client-side rate limiting per
 * client instance; in Lambda, where every execution environment has its own client, that
 * limiter learns little and can delay work needlessly, so it is not used. Tasklane never
 * loops over SDK calls itself: a call that still fails fails the message, and SQS's
 * redelivery (with the task's backoff) is the outer safety net, not a second retry layer.
 */
export function awsClientConfig(): { retryMode: 'standard'; maxAttempts: number } {
  return { retryMode: 'standard', maxAttempts: 5 };
}
