/**
 * Runs the demo's worker the way Lambda would: `createWorker(...).lambdaHandler` behind the
 * local stand-in for the SQS event source mapping, with batch size 10, maximum concurrency 2
 * and a 30-second function timeout.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  createWorker,
  noopMetrics,
  type TaskDefinition,
  type TaskLogger,
} from '../../src/index.js';
import { runEventSourceMapping } from '../../src/local/index.js';

/** Clients and context the worker needs. */
export interface WorkerSetup {
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  readonly logger: TaskLogger;
}

/** A running worker behind the local event source mapping. */
export interface RunningWorker {
  readonly invocations: { batches: number; failedWhole: number };
  /** Aborts if the event source mapping dies. */
  readonly failed: AbortSignal;
  /** Stops polling and waits for the batches in progress. */
  stop(): Promise<void>;
}

/** Runs `createWorker(...).lambdaHandler` the way Lambda's SQS event source mapping would. */
export function startWorker(
  { sqs, dynamodb, logger }: WorkerSetup,
  definitions: readonly TaskDefinition[],
  location: { tableName: string; queueUrl: string },
): RunningWorker {
  const worker = createWorker(definitions, {
    ...location,
    sqs,
    dynamodb,
    logger,
    // The default publishes EMF on stdout, once per batch: it would tear through the
    // progress display. The demo's own report counts the outcomes instead.
    metrics: noopMetrics,
  });
  const invocations = { batches: 0, failedWhole: 0 };
  const stopping = new AbortController();
  const failed = new AbortController();
  const mapping = runEventSourceMapping({
    handler: worker.lambdaHandler,
    queueUrl: location.queueUrl,
    sqs,
    signal: stopping.signal,
    logger,
    maximumConcurrency: 2,
    batchSize: 10,
    timeoutSeconds: 30,
    onBatch: (summary) => {
      invocations.batches += 1;
      if (summary.batchError !== undefined) invocations.failedWhole += 1;
    },
  }).catch((err: unknown) => {
    logMappingFailure(logger, err);
    failed.abort(err);
  });
  console.log('Worker: createWorker(...).lambdaHandler behind the local event source mapping');
  console.log('(batch size 10, maximum concurrency 2, timeout 30 s)\n');
  return {
    invocations,
    failed: failed.signal,
    async stop() {
      stopping.abort();
      await mapping;
    },
  };
}

function logMappingFailure(logger: TaskLogger, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  logger.error('event source mapping stopped', { error: message });
  console.error(`\nThe event source mapping stopped: ${message}`);
}
