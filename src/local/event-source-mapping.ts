import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import type { TaskLogger } from '../observability/logger.js';
import type { LaneProps, LaneQueues } from '../settings/lanes.js';
import { type BatchSummary, pollQueue } from '../worker/sqs-poller.js';

/** A Lambda handler for SQS events, as exported by a function module. */
export type SqsLambdaHandler = (event: SQSEvent, context: Context) => Promise<unknown>;

/** Options of {@link runEventSourceMapping}. */
export interface EventSourceMappingOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly handler: SqsLambdaHandler;
  readonly signal: AbortSignal;
  readonly logger: TaskLogger;
  /** @default 'tasklane-worker' */
  readonly functionName?: string;
  /** The function's timeout; a slower invocation fails its whole batch. @default 60 */
  readonly timeoutSeconds?: number;
  /** @default 10 */
  readonly batchSize?: number;
  /** Concurrent invocations (the mapping's maximum concurrency). @default 2 */
  readonly maximumConcurrency?: number;
  /** Long-poll wait. Lambda uses 20 s; shorter makes shutdown snappier. @default 1 */
  readonly waitTimeSeconds?: number;
  readonly onBatch?: (summary: BatchSummary) => void;
  /**
   * Whether the mapping is disabled, as a paused lane's is in AWS: nothing is received while
   * it says so, and what was received finishes. @default never
   */
  readonly paused?: () => boolean;
}

/**
 * The local stand-in for Lambda's SQS event source mapping with ReportBatchItemFailures:
 * polls the queue, invokes the real handler with a real `SQSEvent` and a Lambda `Context`,
 * deletes what succeeded and leaves failures to reappear. An invocation that throws, times
 * out or returns a malformed response fails its whole batch, as on AWS.
 */
export function runEventSourceMapping(options: EventSourceMappingOptions): Promise<void> {
  const functionName = options.functionName ?? 'tasklane-worker';
  const timeoutMs = (options.timeoutSeconds ?? 60) * 1000;
  const invoke = async (event: SQSEvent): Promise<unknown> => {
    const deadline = Date.now() + timeoutMs;
    const context = lambdaContext(functionName, deadline);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Task timed out after ${timeoutMs / 1000} seconds`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([options.handler(event, context), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };
  return pollQueue({
    sqs: options.sqs,
    queueUrl: options.queueUrl,
    handler: invoke,
    signal: options.signal,
    logger: options.logger,
    batchSize: options.batchSize ?? 10,
    waitTimeSeconds: options.waitTimeSeconds ?? 1,
    concurrency: options.maximumConcurrency ?? 2,
    ...(options.paused === undefined ? {} : { paused: options.paused }),
    ...(options.onBatch === undefined ? {} : { onBatch: options.onBatch }),
  });
}

/**
 * One {@link runEventSourceMapping} per lane, as the construct has one mapping per lane, each
 * with the lane's `maxConcurrency` and `batchSize` (else the options'): a busy lane cannot
 * take another lane's pollers. A lane `lanePaused` names is not polled while it is paused, as
 * a paused lane's mapping is disabled in AWS. Resolves once all stop; rejects when one dies.
 */
export function runLaneMappings(
  queues: LaneQueues,
  options: Omit<EventSourceMappingOptions, 'queueUrl' | 'paused'> & {
    readonly lanes: Readonly<Record<string, LaneProps>>;
    /** Whether a lane is paused (worker/lane-gate.ts). @default never */
    readonly lanePaused?: (lane: string) => boolean;
  },
): Promise<void> {
  const { lanes, lanePaused, ...common } = options;
  return Promise.all(
    queues.entries().map(([lane, location]) =>
      runEventSourceMapping({
        ...common,
        queueUrl: location.queueUrl,
        batchSize: lanes[lane]?.batchSize ?? common.batchSize ?? 10,
        maximumConcurrency: lanes[lane]?.maxConcurrency ?? common.maximumConcurrency ?? 2,
        ...(lanePaused === undefined ? {} : { paused: () => lanePaused(lane) }),
      }),
    ),
  ).then(() => undefined);
}

function lambdaContext(functionName: string, deadline: number): Context {
  const fail = (): never => {
    throw new Error('callback-style completion is not supported; return a promise');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${process.pid}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: fail,
    fail,
    succeed: fail,
  };
}
