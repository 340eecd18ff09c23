/**
 * A real executor (queues, table and, given a Scheduler client, a schedule group) in the
 * emulator, for the integration tests and the fault suite, with factories for its clients and
 * workers and a hand-played event source mapping.
 */
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import {
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { TaskClientOptions } from '../../src/client/options.js';
import { TaskClient } from '../../src/client/task-client.js';
import {
  type ProvisionedExecutor,
  type ProvisionedScheduler,
  provision,
} from '../../src/local/provision.js';
import {
  createSchedulePump,
  type SchedulePump,
  type SchedulePumpOptions,
} from '../../src/local/schedule-pump.js';
import type { LogAttributes, TaskLogger } from '../../src/observability/logger.js';
import { silentLogger } from '../../src/observability/logger.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { createDelayedTasks, type DelayedTasks } from '../../src/scheduler/delayed.js';
import { executorSettings } from '../../src/settings/executor.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { createSweeper, type SweeperOptions } from '../../src/sweeper/create-sweeper.js';
import type { TaskDefinition } from '../../src/tasks/task-definition.js';
import { createWorker, type Worker, type WorkerOptions } from '../../src/worker/create-worker.js';
import { toSqsRecord } from '../../src/worker/sqs-poller.js';
import { type AwsClients, schedulerPumpSqs, testClients, uniqueName } from './aws.js';
import { TestStore } from './test-store.js';

/** An executor provisioned in the emulator, with clients, a store and factories bound to it. */
export interface EmulatorExecutor extends ProvisionedExecutor {
  /** The name its resources are named from. */
  readonly name: string;
  readonly visibilityTimeoutSeconds: number;
  /** The clients it was provisioned with, for observing and for the parts a test leaves alone. */
  readonly clients: AwsClients & { readonly scheduler?: SchedulerClient };
  /** A store for reading records (on the real clock), its parts as fields. */
  readonly store: TestStore;
  /** A schedule pump over the executor's group; throws without one. */
  pump(options?: Partial<SchedulePumpOptions>): SchedulePump;
  client(options?: Partial<TaskClientOptions>): TaskClient;
  worker(tasks: readonly TaskDefinition[], options?: Partial<WorkerOptions>): Worker;
  /**
   * Acts as the event source mapping for one batch: processes the records with the worker,
   * then deletes those not reported as failed. Returns the handler's response.
   */
  deliver(worker: Worker, records: readonly SQSRecord[]): Promise<SQSBatchResponse>;
  /** Messages in the work queue, visible and in flight. */
  queueDepth(): Promise<number>;
  /** Receives up to 10 messages (with all attributes) as Lambda event records. */
  receive(options?: { waitTimeSeconds?: number; visibilityTimeout?: number }): Promise<SQSRecord[]>;
  /**
   * Plays the event source mapping by hand until the queue has nothing visible: receive,
   * `worker.processBatch`, delete what succeeded. Returns how many messages were processed
   * and how many were reported failed (e.g. deferred).
   */
  drain(worker: Worker): Promise<{ processed: number; failed: number }>;
}

/** An executor with its schedule group: what the integration tests use. */
export interface TestExecutor extends EmulatorExecutor {
  readonly clients: ReturnType<typeof testClients>;
  readonly scheduler: ProvisionedScheduler;
  /** Delayed-task scheduling on the executor, as the client and the sweeper build it. */
  delayed(options?: { store?: TaskStore; clock?: () => number }): DelayedTasks;
  /** A sweeper of the executor's table and queue, silent, with `options` on top. */
  sweeper(options?: SweeperOptions): ReturnType<typeof createSweeper>;
}

export interface EmulatorExecutorOptions {
  /** Prefix of the resource names; a random suffix keeps executors apart. */
  readonly label: string;
  /** Sets the queue's visibility timeout (6×). */
  readonly workerTimeoutSeconds: number;
  readonly maxAttempts?: number;
  readonly maxReceiveCount?: number;
  /** The clients to provision with and to bind; a Scheduler client adds a schedule group. */
  readonly clients: AwsClients & { readonly scheduler?: SchedulerClient };
}

/** Provisions a fresh executor for an integration test (with a schedule group). */
export async function setupExecutor(
  props: { workerTimeoutSeconds?: number } = {},
): Promise<TestExecutor> {
  const clients = testClients();
  const executor = await provisionExecutor({
    label: 'tl',
    workerTimeoutSeconds: props.workerTimeoutSeconds ?? 10,
    clients,
  });
  const { scheduler } = executor;
  if (scheduler === undefined) throw new Error('provision created no scheduler resources');
  const location = {
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    queueArn: executor.queueArn,
    scheduleGroup: scheduler.scheduleGroup,
    schedulerRoleArn: scheduler.schedulerRoleArn,
    scheduleDeadLetterArn: scheduler.scheduleDeadLetterArn,
  };
  const delayed = (options: { store?: TaskStore; clock?: () => number } = {}) =>
    createDelayedTasks({
      location,
      store: options.store ?? executor.store,
      sqs: clients.sqs,
      queueUrl: executor.queueUrl,
      scheduler: clients.scheduler,
      logger: silentLogger,
      clock: options.clock ?? Date.now,
    });
  const sweeper = (options: SweeperOptions = {}) =>
    createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...clients,
      logger: silentLogger,
      metrics: noopMetrics,
      ...options,
    });
  return { ...executor, clients, scheduler, delayed, sweeper };
}

/** Provisions a fresh executor in the emulator from the same settings the construct uses. */
export async function provisionExecutor(
  options: EmulatorExecutorOptions,
): Promise<EmulatorExecutor> {
  const { clients } = options;
  const name = uniqueName(options.label);
  const settings = executorSettings({
    name,
    workerTimeoutSeconds: options.workerTimeoutSeconds,
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(options.maxReceiveCount === undefined ? {} : { maxReceiveCount: options.maxReceiveCount }),
  });
  const location = await provision(settings, clients);
  const { queueArn, scheduler } = location;
  // The pump signs as the scheduler stand-in: the emulator reports its key id as SenderId.
  const pumpSqs =
    scheduler === undefined ? undefined : schedulerPumpSqs(scheduler.schedulerSenderId);
  // The delayed group delivers as a role of its own (docs/adr/0036-trust-model-hardening.md).
  const delayedPumpSqs =
    scheduler === undefined ? undefined : schedulerPumpSqs(scheduler.delayedSchedulerSenderId);
  const base = {
    tableName: location.tableName,
    queueUrl: location.queueUrl,
    ...clients,
    logger: silentLogger,
  };
  return {
    ...location,
    name,
    visibilityTimeoutSeconds: settings.visibilityTimeoutSeconds,
    clients,
    store: new TestStore({
      tableName: location.tableName,
      dynamodb: clients.dynamodb,
      logger: silentLogger,
    }),
    client: (overrides = {}) =>
      new TaskClient({
        ...base,
        ...(scheduler === undefined
          ? {}
          : {
              queueArn,
              scheduleGroup: scheduler.scheduleGroup,
              schedulerRoleArn: scheduler.schedulerRoleArn,
              delayedSchedulerRoleArn: scheduler.delayedSchedulerRoleArn,
              scheduleDeadLetterArn: scheduler.scheduleDeadLetterArn,
            }),
        ...overrides,
      }),
    pump: (overrides = {}) => {
      if (scheduler === undefined || pumpSqs === undefined || clients.scheduler === undefined) {
        throw new Error('the executor was provisioned without a schedule group');
      }
      return createSchedulePump({
        scheduler: clients.scheduler,
        sqs: pumpSqs,
        ...(delayedPumpSqs === undefined ? {} : { delayedSqs: delayedPumpSqs }),
        roles: {
          recurring: scheduler.schedulerRoleArn,
          delayed: scheduler.delayedSchedulerRoleArn,
        },
        groupName: scheduler.scheduleGroup,
        ...overrides,
      });
    },
    worker: (tasks, overrides = {}) =>
      createWorker(tasks, {
        ...base,
        leaseGraceMs: 1000,
        metrics: noopMetrics,
        ...(scheduler === undefined
          ? {}
          : {
              schedulerSenderId: scheduler.schedulerSenderId,
              delayedSchedulerSenderId: scheduler.delayedSchedulerSenderId,
            }),
        ...overrides,
      }),
    deliver: async (worker, records) => {
      const response = await worker.processBatch(records);
      const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
      for (const record of records) {
        if (failed.has(record.messageId)) continue;
        await clients.sqs.send(
          new DeleteMessageCommand({
            QueueUrl: location.queueUrl,
            ReceiptHandle: record.receiptHandle,
          }),
        );
      }
      return response;
    },
    queueDepth: async () => {
      const out = await clients.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: location.queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      return (
        Number(out.Attributes?.ApproximateNumberOfMessages) +
        Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible)
      );
    },
    receive: async (options = {}) => {
      const out = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: location.queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: options.waitTimeSeconds ?? 1,
          ...(options.visibilityTimeout === undefined
            ? {}
            : { VisibilityTimeout: options.visibilityTimeout }),
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      return (out.Messages ?? []).map((m: Message) => toSqsRecord(m, queueArn, 'us-east-1'));
    },
    async drain(worker) {
      let processed = 0;
      let failed = 0;
      for (let round = 0; round < 100; round++) {
        const out = await clients.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: location.queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            MessageSystemAttributeNames: ['All'],
          }),
        );
        const records = (out.Messages ?? []).map((m) => toSqsRecord(m, queueArn, 'us-east-1'));
        if (records.length === 0) return { processed, failed };
        const response = await worker.processBatch(records);
        const failedIds = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
        const done = records.filter((r) => !failedIds.has(r.messageId));
        processed += records.length;
        failed += failedIds.size;
        if (done.length > 0) {
          await clients.sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: location.queueUrl,
              Entries: done.map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })),
            }),
          );
        }
      }
      throw new Error('drain: the queue did not empty within 100 rounds');
    },
  };
}

/** A logger that keeps every line, for asserting on audit events. */
export function recordingLogger(): TaskLogger & {
  lines: { level: string; message: string; attributes: LogAttributes }[];
} {
  const lines: { level: string; message: string; attributes: LogAttributes }[] = [];
  const at =
    (level: string) =>
    (message: string, attributes: LogAttributes = {}) => {
      lines.push({ level, message, attributes });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** Resolves when `check` returns true, polling every 50 ms; rejects after `timeoutMs`. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { silentLogger };
