/**
 * The Lambda side of a consumer child: serves function handlers behind the local event source
 * mapping. Kept apart from the harness, so the raw loop's bundle does not carry it.
 */
import { silentLogger } from '../../src/index.js';
import { runEventSourceMapping, type SqsLambdaHandler } from '../../src/local/testing/index.js';
import type { ConsumerProgress, ConsumerSetup } from './harness.js';

/**
 * Serves Lambda handlers behind the local event source mapping, as Lambda would: one handler
 * per concurrent invocation (built by `create`), each invocation timed, each batch reported.
 * Every consumer that stands in for a Lambda function uses it, so they are measured alike.
 */
export function serveLambda(
  { config, sqs, progress }: ConsumerSetup,
  create: () => SqsLambdaHandler,
): Promise<void> {
  return runEventSourceMapping({
    sqs,
    queueUrl: config.queueUrl,
    handler: timed(perEnvironment(config.concurrency, create), progress),
    signal: progress.signal,
    // The mapping stands in for the Lambda service; its own lines are not the function's.
    logger: silentLogger,
    batchSize: config.batchSize,
    maximumConcurrency: config.concurrency,
    onBatch: (s) => progress.batch(s.deleted, s.failed, s.batchError !== undefined),
  });
}

/**
 * One handler per execution environment. Lambda never runs two invocations at once in one
 * environment, and handlers may keep per-invocation state at module scope (Powertools' batch
 * processor does); the local mapping runs `count` invocations at once in this process, so
 * each gets an environment of its own, built by `create`.
 */
function perEnvironment<A extends unknown[], R>(
  count: number,
  create: () => (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  const free = Array.from({ length: count }, create);
  return async (...args) => {
    const handler = free.pop();
    if (handler === undefined) throw new Error(`more than ${count} invocations at once`);
    try {
      return await handler(...args);
    } finally {
      free.push(handler);
    }
  };
}

/** Wraps a Lambda-style handler to time each invocation. */
function timed<A extends unknown[], R>(
  handler: (...args: A) => Promise<R>,
  progress: ConsumerProgress,
): (...args: A) => Promise<R> {
  return async (...args) => {
    const t = performance.now();
    try {
      return await handler(...args);
    } finally {
      progress.invocation(performance.now() - t);
    }
  };
}
