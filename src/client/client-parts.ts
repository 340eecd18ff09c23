/**
 * The parts a TaskClient is made of, wired from its options: the store, the outbox's
 * dispatcher, the schedules' target, delayed tasks and recurring schedules, the status index
 * reader, and the record writer of enqueue.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { Defaults } from '../constants.js';
import { resolveIntegrity } from '../integrity/tag.js';
import type { TaskLogger } from '../observability/logger.js';
import { Dispatcher } from '../outbox/dispatcher.js';
import { createDelayedTasks, type DelayedTasks } from '../scheduler/delayed.js';
import { SchedulerTarget } from '../scheduler/target.js';
import { resolveRetention } from '../store/retention.js';
import { TaskStore } from '../store/task-store.js';
import type { RecordWriter } from './create-record.js';
import type { TableCall } from './guarded-calls.js';
import type { TaskClientOptions } from './options.js';
import { RecurringSchedules } from './schedules.js';
import { type StatusIndex, statusIndex } from './status-index.js';

/** What {@link clientParts} returns. */
export interface ClientParts {
  readonly store: TaskStore;
  readonly dispatcher: Dispatcher;
  readonly target: SchedulerTarget;
  readonly delayed: DelayedTasks;
  readonly recurring: RecurringSchedules;
  readonly index: StatusIndex;
  readonly tableCall: TableCall;
  readonly writer: RecordWriter;
}

/** Wires a client's parts from its options and the clients it resolved. */
export function clientParts(
  options: TaskClientOptions,
  base: {
    readonly location: { readonly tableName: string; readonly queueUrl: string };
    readonly sqs: SQSClient;
    readonly dynamodb: DynamoDBClient;
    readonly logger: TaskLogger;
    readonly clock: () => number;
  },
): ClientParts {
  const { location, sqs, dynamodb, logger, clock } = base;
  const queueUrl = location.queueUrl;
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
    scheduler: options.scheduler,
  });
  const delayed = createDelayedTasks({
    location: options,
    store,
    target,
    sqs,
    queueUrl,
    logger,
    clock,
    scheduleThresholdMs: options.scheduleThresholdMs,
  });
  const tableCall = { tableName: location.tableName, dynamodb };
  return {
    store,
    dispatcher: new Dispatcher(sqs, queueUrl, logger),
    target,
    delayed,
    recurring: new RecurringSchedules(target, clock),
    index: statusIndex(dynamodb, location.tableName, store.statusShards),
    tableCall,
    writer: {
      store,
      delayed,
      table: tableCall,
      integrity: resolveIntegrity(options.integrity, dynamodb),
      maxPayloadBytes: options.maxPayloadBytes ?? Defaults.MAX_PAYLOAD_BYTES,
      clock,
    },
  };
}
