/**
 * The parts a TaskClient is made of, wired from its options: the store, the outbox's
 * dispatcher, the schedules' target, delayed tasks and recurring schedules, the status index
 * reader, and what enqueue needs.
 */

import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig, sqsClientConfig } from '../aws/clients.js';
import { type ObjectStore, resolveObjectStore } from '../claim-check/object-store.js';
import { Defaults } from '../core/constants.js';
import { resolveIntegrity } from '../integrity/tag.js';
import { defaultLogger, type TaskLogger } from '../observability/logger.js';
import { meterClient, UsageMeter } from '../observability/usage-meter.js';
import { createDelayedTasks, type DelayedTasks } from '../scheduler/delayed.js';
import { Dispatcher } from '../scheduler/dispatcher.js';
import { newSchedulerClient } from '../scheduler/scheduler-client.js';
import { SchedulerTarget } from '../scheduler/target.js';
import { Waker } from '../scheduler/waker.js';
import { WakeSchedules } from '../scheduler/wakes.js';
import type { LaneQueues } from '../settings/lanes.js';
import {
  EnvVars,
  type ExecutorLocation,
  resolveLaneQueues,
  resolveLocation,
} from '../settings/location.js';
import { resolveRetention } from '../settings/retention.js';
import { StatusIndex } from '../store/status-index.js';
import { DynamoDBClient } from '../store/table.js';
import type { DynamoDBStreamsClient } from '../store/table-stream.js';
import { TaskStore } from '../store/task-store.js';
import type { EnqueueDeps } from './enqueue.js';
import type { TableCall } from './guarded-calls.js';
import { type LaneMappings, lambdaLaneMappings } from './lane-mappings.js';
import { fixedPrincipal, type PrincipalSource, stsPrincipal } from './operator-principal.js';
import type { TaskClientOptions } from './options.js';
import { RecurringSchedules } from './schedules.js';

/** What {@link clientParts} returns. */
export interface ClientParts {
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  /** The injected DynamoDB Streams client, if any (watch() makes one otherwise). */
  readonly dynamodbStreams: DynamoDBStreamsClient | undefined;
  /** The options' location fields, as given (for check()'s messages). */
  readonly location: ExecutorLocation;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string | undefined;
  /** Every lane's queues, the default lane's at `queueUrl` (docs/lanes.md). */
  readonly lanes: LaneQueues;
  readonly logger: TaskLogger;
  readonly clock: () => number;
  /** The payload bucket, for claim-checked results. */
  readonly objects: ObjectStore;
  readonly store: TaskStore;
  readonly dispatcher: Dispatcher;
  readonly target: SchedulerTarget;
  readonly delayed: DelayedTasks;
  readonly recurring: RecurringSchedules;
  /** Makes a waiting task's message come, or lets a held one go (docs/adr/0048-durable-sleep-signals-pause.md). */
  readonly waker: Waker;
  /** Suspended tasks' wake schedules. */
  readonly wakes: WakeSchedules;
  readonly index: StatusIndex;
  readonly tableCall: TableCall;
  /** What enqueue and enqueueBatch need. */
  readonly enqueue: EnqueueDeps;
  /** Meters enqueue's requests on the client's SQS and DynamoDB clients (docs/cost.md). */
  readonly usage: UsageMeter;
  /** Who operator actions are recorded as (docs/adr/0039-operator-audit.md). */
  readonly principal: PrincipalSource;
  /** The lanes' Lambda event source mappings, for pauseLane and resumeLane. */
  readonly laneMappings: LaneMappings;
}

/** Wires a client's parts from its options, making the clients it is not given. */
export function clientParts(options: TaskClientOptions): ClientParts {
  const location = resolveLocation(options);
  const sqs = options.sqs ?? new SQSClient(sqsClientConfig());
  const dynamodb = options.dynamodb ?? new DynamoDBClient(awsClientConfig());
  const logger = options.logger ?? defaultLogger();
  const clock = options.clock ?? Date.now;
  const queueUrl = location.queueUrl;
  const lanes = resolveLaneQueues(options, queueUrl);
  const store = new TaskStore({
    tableName: location.tableName,
    dynamodb,
    logger,
    clock,
    ...(options.statusShards === undefined ? {} : { statusShards: options.statusShards }),
    retention: resolveRetention(options.retention),
  });
  const target = new SchedulerTarget({
    location: options,
    sqs,
    queueUrl,
    lanes,
    scheduler: options.scheduler,
    newClient: newSchedulerClient,
  });
  const dispatcher = new Dispatcher(sqs, lanes, logger);
  const delayed = createDelayedTasks({
    location: options,
    store,
    target,
    sqs,
    queueUrl,
    lanes,
    logger,
    clock,
    scheduleThresholdMs: options.scheduleThresholdMs,
    dispatcher,
  });
  const tableCall = { tableName: location.tableName, dynamodb };
  const objects = resolveObjectStore(options);
  const enqueue: EnqueueDeps = {
    store,
    delayed,
    dispatcher,
    table: tableCall,
    integrity: resolveIntegrity(options.integrity, dynamodb),
    objects,
    maxPayloadBytes: objects.limit(options.maxPayloadBytes, Defaults.MAX_PAYLOAD_BYTES),
    clock,
    lanes,
    logger,
    tracing: options.tracing ?? true,
  };
  meterClient(sqs);
  meterClient(dynamodb);
  return {
    sqs,
    dynamodb,
    dynamodbStreams: options.dynamodbStreams,
    location: options,
    queueUrl,
    deadLetterQueueUrl: options.deadLetterQueueUrl ?? process.env[EnvVars.DLQ_URL],
    lanes,
    logger,
    clock,
    objects,
    store,
    dispatcher,
    target,
    delayed,
    recurring: new RecurringSchedules(target, clock),
    waker: new Waker(sqs, dispatcher, lanes, logger),
    wakes: new WakeSchedules(target),
    // The operator reads of the status index (docs/status-index.md): the worker's store
    // leaves them out (docs/adr/0006-worker-bundle.md).
    index: store.feature(StatusIndex),
    tableCall,
    enqueue,
    usage: new UsageMeter(clock),
    principal:
      options.principal === undefined
        ? stsPrincipal({ sts: options.sts, logger })
        : fixedPrincipal(options.principal),
    laneMappings: lambdaLaneMappings(dynamodb, options.workerFunctionName),
  };
}
