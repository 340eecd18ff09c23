/**
 * The frame of every consumer child: reads its instructions, counts its AWS requests, runs
 * the consumer until enough messages are deleted (or the time is up), and prints the result
 * as one line on stdout. Consumers run as bundled, separate node processes so that each
 * one's peak memory is its own.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { executions } from '../fixtures/noop.js';
import { RequestCounter } from '../lib/request-counter.js';
import { summarize } from '../lib/stats.js';
import { type ConsumerConfig, type ConsumerResult, RESULT_MARKER } from './protocol.js';

/** Progress a consumer reports back to the harness. */
export interface ConsumerProgress {
  /** Call after each batch with what it deleted and left for a retry. */
  batch(deleted: number, failed: number, batchError: boolean): void;
  /** Call with each invocation's duration. */
  invocation(ms: number): void;
  /** Aborts when the run is complete or out of time. */
  readonly signal: AbortSignal;
}

/** The clients and instructions a consumer gets. */
export interface ConsumerSetup {
  readonly config: ConsumerConfig;
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  readonly progress: ConsumerProgress;
}

/**
 * Runs one consumer. `clientConfig` is what the system under test would configure its own
 * clients with (Tasklane's `awsClientConfig()`, or the SDK defaults).
 */
export async function runConsumer(
  run: (setup: ConsumerSetup) => Promise<void>,
  clientConfig: Record<string, unknown> = {},
): Promise<void> {
  const config = JSON.parse(process.env.BENCH_CONSUMER ?? '{}') as ConsumerConfig;
  const counter = new RequestCounter(config.indexKeyAttributes);
  const sqs = new SQSClient(clientConfig);
  const dynamodb = new DynamoDBClient(clientConfig);
  counter.attach(sqs);
  counter.attach(dynamodb);

  const stop = new AbortController();
  const durations: number[] = [];
  let deleted = 0;
  let failed = 0;
  let invocations = 0;
  let batchErrors = 0;
  let elapsedMs: number | undefined;
  let timedOut = false;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const start = performance.now();
  const timer = setTimeout(() => {
    timedOut = true;
    stop.abort();
    finish();
  }, config.timeoutMs);
  const progress: ConsumerProgress = {
    signal: stop.signal,
    batch(d, f, error) {
      invocations += 1;
      deleted += d;
      failed += f;
      if (error) batchErrors += 1;
      if (deleted >= config.expected && elapsedMs === undefined) {
        elapsedMs = performance.now() - start;
        stop.abort();
        finish();
      }
    },
    invocation: (ms) => durations.push(ms),
  };
  // Done once the last task is deleted: the receive still waiting on the empty queue is idle
  // polling, not work, so the process reports and exits without waiting for it.
  await Promise.race([run({ config, sqs, dynamodb, progress }), finished]);
  clearTimeout(timer);
  const result: ConsumerResult = {
    elapsedMs: elapsedMs ?? performance.now() - start,
    deleted,
    failed,
    executions: executions.count,
    invocations,
    invocationMedianMs: durations.length === 0 ? 0 : summarize(durations).median,
    batchErrors,
    tally: counter.snapshot(),
    maxRssKb: process.resourceUsage().maxRSS,
    heapAfterGcKb: heapAfterGc(),
    timedOut,
  };
  process.stdout.write(`\n${RESULT_MARKER}${JSON.stringify(result)}\n`, () => process.exit(0));
}

/** The heap still in use after a full collection (needs `--expose-gc`), in KB. */
function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return 0;
  gc();
  return Math.round(process.memoryUsage().heapUsed / 1024);
}
