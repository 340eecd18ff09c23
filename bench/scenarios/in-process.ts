/**
 * Measurements that run producer and worker in the bench process, on counted clients: the
 * realistic scenario, the feature costs and the AWS-shaped mode. The worker is
 * `createWorker(...).lambdaHandler` behind the local event source mapping, as in production
 * minus Lambda; its clients are the counted ones, optionally delayed like AWS
 * (bench/lib/latency.ts) and metered from item images (bench/lib/image-meter.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig, sqsClientConfig } from '../../src/aws/clients.js';
import {
  createWorker,
  noopMetrics,
  silentLogger,
  TaskClient,
  type TaskDefinition,
  type TaskMetrics,
  type TaskOutcome,
  type WorkerOptions,
} from '../../src/index.js';
import { runEventSourceMapping, type SqsLambdaHandler } from '../../src/local/testing/index.js';
import { addUsage, emptyUsage, type Usage } from '../../src/observability/usage-meter.js';
import { INDEX_KEY_ATTRIBUTES } from '../config.js';
import { LAMBDA_WORKER_ID } from '../fixtures/realistic.js';
import { describeIndex, type ImageMeter, ImageMeter as Meter } from '../lib/image-meter.js';
import { AWS_SHAPE, injectLatency } from '../lib/latency.js';
import { RequestCounter } from '../lib/request-counter.js';

/** Where requests go: straight to the emulator, or held like AWS's latency first. */
export type Shape = 'emulator' | 'aws-shaped';

/** Counted clients and a TaskClient on them. */
export interface CountedClients {
  readonly counter: RequestCounter;
  readonly images: ImageMeter | undefined;
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  /** Counted too; only a worker given scheduling settings sends through it (wake schedules). */
  readonly scheduler: SchedulerClient;
  readonly client: TaskClient;
  destroy(): void;
}

/** The executor a measurement runs against. */
export interface Location {
  readonly tableName: string;
  readonly queueUrl: string;
}

/**
 * Counted clients for `location`. With `images`, every write is also priced from its
 * images, read through `reader` (untimed measurements only).
 */
export async function countedClients(
  location: Location,
  shape: Shape,
  reader?: DynamoDBClient,
): Promise<CountedClients> {
  const counter = new RequestCounter(INDEX_KEY_ATTRIBUTES);
  const sqs = new SQSClient(sqsClientConfig());
  const dynamodb = new DynamoDBClient(awsClientConfig());
  const scheduler = new SchedulerClient(awsClientConfig());
  counter.attach(scheduler);
  const images =
    reader === undefined
      ? undefined
      : new Meter(reader, await describeIndex(reader, location.tableName));
  for (const c of [sqs, dynamodb]) {
    counter.attach(c);
    if (shape === 'aws-shaped') injectLatency(c, AWS_SHAPE);
  }
  images?.attach(dynamodb);
  const client = new TaskClient({
    tableName: location.tableName,
    queueUrl: location.queueUrl,
    sqs,
    dynamodb,
    logger: silentLogger,
  });
  return {
    counter,
    images,
    sqs,
    dynamodb,
    scheduler,
    client,
    destroy: () => {
      sqs.destroy();
      dynamodb.destroy();
      scheduler.destroy();
    },
  };
}

/** What draining a queue took. */
export interface Drained {
  readonly ms: number;
  readonly invocations: number;
  readonly deleted: number;
  readonly timedOut: boolean;
}

/** Runs `handler` behind the local event source mapping until `n` messages are deleted. */
export async function drain(
  sqs: SQSClient,
  queueUrl: string,
  n: number,
  handler: SqsLambdaHandler,
  options: {
    batchSize: number;
    concurrency: number;
    timeoutMs: number;
    /** The stand-in Lambda's timeout: a slower invocation fails its batch. @default 60 */
    invocationTimeoutSeconds?: number;
  },
): Promise<Drained> {
  const controller = new AbortController();
  let deleted = 0;
  let invocations = 0;
  let timedOut = false;
  const start = performance.now();
  const deadline = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  try {
    await runEventSourceMapping({
      sqs,
      queueUrl,
      handler,
      signal: controller.signal,
      logger: silentLogger,
      batchSize: options.batchSize,
      maximumConcurrency: options.concurrency,
      waitTimeSeconds: 1,
      ...(options.invocationTimeoutSeconds === undefined
        ? {}
        : { timeoutSeconds: options.invocationTimeoutSeconds }),
      onBatch: (s) => {
        invocations += 1;
        deleted += s.deleted;
        if (deleted >= n) controller.abort();
      },
    });
  } finally {
    clearTimeout(deadline);
  }
  return { ms: performance.now() - start, invocations, deleted, timedOut };
}

/** Worker metrics that keep the run-time usage the worker metered (ADR 0025). */
export interface UsageRecorder extends TaskMetrics {
  readonly total: Usage;
  readonly tasks: number;
  /** The outcomes the worker counted: how many runs succeeded, failed, were retried. */
  readonly outcomes: Readonly<Partial<Record<TaskOutcome, number>>>;
}

export function usageRecorder(): UsageRecorder {
  const total = emptyUsage();
  const outcomes: Partial<Record<TaskOutcome, number>> = {};
  let tasks = 0;
  return {
    ...noopMetrics,
    total,
    outcomes,
    get tasks() {
      return tasks;
    },
    count: (outcome: TaskOutcome, count = 1) => {
      outcomes[outcome] = (outcomes[outcome] ?? 0) + count;
    },
    usage: (_type: string, usage: Usage, count: number) => {
      addUsage(total, usage);
      tasks += count;
    },
  };
}

/**
 * A worker for `tasks` on the counted clients, with a Lambda-length worker id; `extra` adds
 * settings (a feature's scheduling settings).
 */
export function benchWorker(
  tasks: readonly TaskDefinition[],
  location: Location,
  clients: Pick<CountedClients, 'sqs' | 'dynamodb'>,
  metrics: TaskMetrics = noopMetrics,
  extra: Partial<WorkerOptions> = {},
): SqsLambdaHandler {
  const worker = createWorker([...tasks], {
    ...extra,
    tableName: location.tableName,
    queueUrl: location.queueUrl,
    sqs: clients.sqs,
    dynamodb: clients.dynamodb,
    logger: silentLogger,
    metrics,
    workerId: LAMBDA_WORKER_ID,
  });
  return worker.lambdaHandler as SqsLambdaHandler;
}
