import { hostname } from 'node:os';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { awsClientConfig, lazyClient, sqsClientConfig } from '../aws/clients.js';
import { clientOnFirstSend, loadSqs, once } from '../aws/sdk.js';
import { Defaults } from '../core/constants.js';
import { ValidationError, type ValidationIssue } from '../core/errors.js';
import type { WorkerEventOptions } from '../events/worker-config.js';
import type { LifecycleHooks } from '../events/worker-events.js';
import type { IntegrityOptions } from '../integrity/integrity-settings.js';
import { defaultLogger, type TaskLogger } from '../observability/logger.js';
import { powertoolsMetrics, type TaskMetrics } from '../observability/metrics.js';
import { type TracingOption, tracingOptionIssue } from '../observability/tracing.js';
import { BATCH_USAGE, meterClient, UsageMeter } from '../observability/usage-meter.js';
import {
  EnvVars,
  type ExecutorLocation,
  resolveLaneQueues,
  resolveLocation,
  scheduleThreshold,
} from '../settings/location.js';
import { type Retention, resolveRetention } from '../settings/retention.js';
import { DynamoDBClient } from '../store/table.js';
import { TaskStore } from '../store/task-store.js';
import { retryHorizonIssue } from '../tasks/retry-horizon.js';
import { receiveLimitIssue, type TaskDefinition } from '../tasks/task-definition.js';
import type { BatchOptions, ProcessorDeps } from './deps.js';
import {
  dispatcherOnFirstUse,
  eventsOnFirstUse,
  integrityKey,
  objectsOnFirstUse,
  rateLimiterOnFirstUse,
  wakeSchedules,
} from './feature-deps.js';
import { resolveFiringSenders } from './firing-trust.js';
import { type PollOptions, pollLanes } from './poll-lanes.js';
import { processBatch } from './processor.js';
import { QueueRetentions } from './retry-filing.js';
import { TakeoverGate } from './takeover-gate.js';
import { VisibilityController } from './visibility.js';

/** Options of {@link createWorker}. */
export interface WorkerOptions extends ExecutorLocation, LifecycleHooks {
  readonly dynamodb?: DynamoDBClient;
  /**
   * Verify each claimed task's integrity tag before its handler runs (kms:VerifyMac), and tag
   * the recurring firings the worker creates (kms:GenerateMac). A task that fails is declared
   * DEAD unrun (`INTEGRITY_FAILED`). @default on when `TASKLANE_INTEGRITY_KEY_ID` is set
   */
  readonly integrity?: IntegrityOptions | undefined;
  readonly sqs?: SQSClient;
  readonly logger?: TaskLogger;
  /**
   * Task outcomes, handler durations and queue latency, published once per batch (Lambda
   * invocation or poll batch). @default {@link powertoolsMetrics}: EMF on stdout, namespace
   * `Tasklane`, dimension `service`
   */
  readonly metrics?: TaskMetrics;
  /** Recorded on every claim and audit event. @default function/log stream in Lambda, else host/pid */
  readonly workerId?: string;
  /** @default Date.now */
  readonly clock?: () => number;
  /**
   * Added to a task's timeout to form its lease; must exceed the worst clock skew between
   * two workers. @default 75000
   */
  readonly leaseGraceMs?: number;
  /**
   * Longest lease taken at once; longer runs are kept alive by an automatic heartbeat every
   * third of it. Bounds how long a crashed worker's task waits to be taken over.
   * @default 120000
   */
  readonly leaseDurationMs?: number;
  /**
   * A run's first `ctx.progress()` report is written at once; later ones at most once per
   * this interval (the latest details each time), whatever the lease. At least 500.
   * @default 5000
   */
  readonly progressIntervalMs?: number;
  /**
   * Trace each attempt as an OpenTelemetry span linked to the span that enqueued the task,
   * with the task id, type, attempt and outcome as attributes; the handler's own spans are
   * its children. `true` traces once the app has registered a tracer provider with
   * `@opentelemetry/api` 1.x (an optional peer dependency, never imported by Tasklane); `false`
   * never (docs/tracing.md). @default true
   */
  readonly tracing?: TracingOption;
  /** Message groups processed at once within a batch. @default 10 */
  readonly groupConcurrency?: number;
  /**
   * Largest result accepted, as UTF-8 JSON bytes; a larger one makes the task DEAD with
   * ResultTooLargeError. @default 32768; 104857600 (100 MiB) with a `payloadBucket`
   */
  readonly maxResultBytes?: number;
  /**
   * Largest claim-checked payload the worker reads, as UTF-8 JSON bytes; a task whose payload
   * is larger is DEAD unrun with PayloadTooLargeError, before any byte is downloaded. Keep it
   * at the producers' `maxPayloadBytes` and within the worker's memory (docs/large-payloads.md).
   * @default the payload bucket's default limit (Defaults.MAX_CLAIM_CHECK_BYTES)
   */
  readonly maxPayloadBytes?: number;
  /**
   * With a `payloadBucket`, results larger than this go to S3 and the record holds the
   * reference. 0 to 131072. @default 65536
   */
  readonly payloadThresholdBytes?: number;
  /** Injected S3 client, for the payload bucket. @default a new client, made on first use */
  readonly s3?: S3Client;
  /** Must match the producers' setting. @default 8 */
  readonly statusShards?: number;
  /**
   * How long a SUCCEEDED or CANCELLED task is kept, and so how long its id stays reserved:
   * milliseconds after it finished, or `'forever'` (no TTL). DEAD tasks stay until purged.
   * Use the same value in producers, workers and the sweeper.
   * @default `TASKLANE_RETENTION_MS`, else 30 days
   */
  readonly retention?: Retention;
  /**
   * The work queue's message retention, in ms, when it is shorter than SQS's 14-day maximum
   * (a queue you created yourself). Every task type's retry horizon, `maxAttempts ×
   * (maxDelayMs + timeout)`, must then stay within half of it. A retry whose message
   * outlives its delay by a day leaves its task out of the status index
   * (docs/adr/0068-a-retry-stays-off-the-index.md); without this option the worker reads the
   * queue's retention for that, once, at its first retry.
   * @default 14 days, which `defineTask` already checks
   */
  readonly queueRetentionMs?: number;
  /**
   * The work queue's `maxReceiveCount` (the construct's prop, 50 by default). When given,
   * every task type's `maxAttempts + maxContinuations` plus a headroom of 5 must stay below
   * it: a continuing task keeps its message, received once per attempt and per continuation
   * (docs/durable-tasks.md). @default unchecked here; `defineTask` checks SQS's limit of 1000
   */
  readonly maxReceiveCount?: number;
  /**
   * The principal allowed to send recurring schedules' firings: the scheduler role's unique
   * id (`AROA…`, from `aws iam get-role`; SQS reports `AROA…:<session>` as the SenderId, and
   * the part before `:` is compared). A firing from anyone else is rejected: acknowledged,
   * audited as `message-rejected`, never run (ADR 0013). `false` (or `'*'` in the
   * environment) accepts firings from any sender: only for a queue no one else can send to.
   * The local executor passes its schedule pump's access key id.
   * @default `TASKLANE_SCHEDULER_SENDER_ID`; when neither is set, every firing is rejected
   *   and logged as an error
   */
  readonly schedulerSenderId?: string | false | undefined;
  /**
   * The unique id of the role that delivers delayed tasks' one-time schedules, which
   * producers create. Its firings are rejected whatever `schedulerSenderId` says, with a
   * reason naming it; it must differ from `schedulerSenderId` (docs/security.md, "Firings").
   * The construct sets it; task envelopes are admitted from any sender either way.
   * @default `TASKLANE_DELAYED_SCHEDULER_SENDER_ID`, else unknown
   */
  readonly delayedSchedulerSenderId?: string | undefined;
  /**
   * A suspended task's timer at most this far ahead is carried by its message's visibility
   * (an SQS delay); a longer one, for a task without an ordering key, by a one-time schedule
   * that wakes it (docs/durable-tasks.md). Scheduling is configured as for a client's delayed
   * tasks (`scheduleGroup`, `delayedSchedulerRoleArn`, …, or their environment variables, which
   * the construct sets); without it, every suspended task's message is held.
   * @default 60000
   */
  readonly scheduleThresholdMs?: number;
  /** Injected EventBridge Scheduler client, for wake schedules. @default one from the environment */
  readonly scheduler?: SchedulerClient;
  /**
   * Publish lifecycle events (`Tasklane Task Succeeded`, `Failed`, `Dead`, `Cancelled`) to
   * EventBridge, once per batch, after the transitions are written; see docs/events.md.
   * The hooks (`onSucceeded`, `onFailed`, `onDead`, `onCancelled`) run with or without it.
   * @default on when `TASKLANE_EVENT_BUS` is set (the construct's `events: true`)
   */
  readonly events?: boolean | WorkerEventOptions | undefined;
}

export type { PollOptions } from './poll-lanes.js';

/** A worker: one processing core behind a Lambda handler and a standalone poll loop. */
export interface Worker {
  /** The Lambda handler for an SQS event source mapping with ReportBatchItemFailures. */
  readonly lambdaHandler: (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>;
  /** Processes one batch of records; the core both entry points share. */
  processBatch(records: readonly SQSRecord[], options?: BatchOptions): Promise<SQSBatchResponse>;
  /** Long-polls the queue until `signal` aborts (ECS, a laptop, tests). */
  poll(options: PollOptions): Promise<void>;
  readonly workerId: string;
}

function defaultWorkerId(): string {
  const fn = process.env.AWS_LAMBDA_FUNCTION_NAME;
  if (fn !== undefined) return `${fn}/${process.env.AWS_LAMBDA_LOG_STREAM_NAME ?? 'unknown'}`;
  return `${hostname()}/${process.pid}`;
}

/**
 * Creates a worker for the given task definitions.
 *
 * @throws ValidationError if two definitions share a type, or (with `queueRetentionMs`) a
 * task type's retry horizon is over half the queue's retention.
 * @throws ConfigurationError if the table or queue cannot be resolved.
 */
export function createWorker(
  tasks: readonly TaskDefinition[],
  options: WorkerOptions = {},
): Worker {
  const definitions = new Map<string, TaskDefinition>();
  const duplicates = new Set<string>();
  for (const task of tasks) {
    if (definitions.has(task.type)) duplicates.add(task.type);
    definitions.set(task.type, task);
  }
  const issues: ValidationIssue[] = [...duplicates].map((type) => ({
    path: type,
    message: 'task type is defined more than once',
  }));
  if (options.queueRetentionMs !== undefined) {
    issues.push(...horizonIssues(definitions.values(), options.queueRetentionMs));
  }
  if (options.maxReceiveCount !== undefined) {
    for (const { type, retry, maxContinuations } of definitions.values()) {
      const limit = options.maxReceiveCount;
      const message = receiveLimitIssue(retry.maxAttempts, maxContinuations ?? 0, limit);
      if (message !== undefined) issues.push({ path: `${type}.maxContinuations`, message });
    }
  }
  if (issues.length > 0) throw new ValidationError('worker task list', issues);
  const tracing = tracingOptionIssue(options.tracing);
  if (tracing !== undefined) throw new ValidationError('worker options', [tracing]);
  const location = resolveLocation(options);
  const logger = options.logger ?? defaultLogger();
  const metrics = options.metrics ?? powertoolsMetrics();
  // Clients are made on first use, and metered (docs/cost.md); given ones at once.
  // SQS's package too is loaded on first use: a batch whose tasks succeed sends nothing to SQS.
  const givenSqs = metered(options.sqs);
  const sqsClient = once(async () => {
    if (givenSqs !== undefined) return givenSqs;
    const { SQSClient } = await loadSqs();
    return metered(new SQSClient(sqsClientConfig()));
  });
  const sqs = givenSqs ?? clientOnFirstSend(sqsClient);
  const dynamodb =
    metered(options.dynamodb) ?? lazyClient(() => metered(new DynamoDBClient(awsClientConfig())));
  const clock = options.clock ?? Date.now;
  const usage = new UsageMeter(clock);
  const workerId = options.workerId ?? defaultWorkerId();
  // With the queue's ARN known, the visibility controller needs no GetQueueUrl call. The
  // environment's ARN is trusted only together with the environment's URL.
  const queueArn =
    options.queueArn ??
    (options.queueUrl === undefined ? process.env[EnvVars.QUEUE_ARN] || undefined : undefined);
  const objects = objectsOnFirstUse(options);
  const lanes = resolveLaneQueues(options, location.queueUrl);
  const store = new TaskStore({
    tableName: location.tableName,
    dynamodb,
    clock,
    logger,
    ...(options.statusShards === undefined ? {} : { statusShards: options.statusShards }),
    retention: resolveRetention(options.retention),
  });
  const { onSucceeded, onFailed, onDead, onCancelled } = options;
  const hooks = { onSucceeded, onFailed, onDead, onCancelled };
  const events = eventsOnFirstUse(options.events, hooks, location.tableName, logger);
  const visibility = new VisibilityController(
    sqs,
    logger,
    location.queueUrl,
    queueArn,
    lanes,
    clock,
  );
  const deps: ProcessorDeps = {
    definitions,
    store,
    loadEvents: events,
    visibility,
    // Sends the tasks a finished parent releases, each to its own lane's queue.
    dispatcher: dispatcherOnFirstUse(sqs, lanes, logger),
    logger,
    metrics,
    usage,
    workerId,
    clock,
    leaseGraceMs: options.leaseGraceMs ?? Defaults.LEASE_GRACE_MS,
    leaseDurationMs: options.leaseDurationMs ?? Defaults.LEASE_DURATION_MS,
    progressIntervalMs: progressInterval(options.progressIntervalMs),
    tracing: options.tracing ?? true,
    maxResultBytes: objects.limit(options.maxResultBytes, Defaults.MAX_RESULT_BYTES),
    maxPayloadBytes: objects.limit(options.maxPayloadBytes, Defaults.MAX_PAYLOAD_BYTES),
    objects,
    groupConcurrency: options.groupConcurrency ?? 10,
    takeoverGate: new TakeoverGate(),
    random: Math.random,
    firingSenders: resolveFiringSenders(
      options.schedulerSenderId,
      process.env,
      options.delayedSchedulerSenderId,
    ),
    rateLimits: rateLimiterOnFirstUse(store, clock),
    integrity: integrityKey(options.integrity, dynamodb),
    wakes: wakeSchedules(options, sqs, location.queueUrl, lanes),
    scheduleThresholdMs: scheduleThreshold(options.scheduleThresholdMs),
    retentions: new QueueRetentions(
      sqs,
      (arn) => visibility.queueUrl(arn),
      logger,
      options.queueRetentionMs,
    ),
  };
  // One flush per batch, in both entry points; a batch that throws still publishes. The
  // batch's requests are metered by task type; the rest under BATCH_USAGE (docs/cost.md).
  const run = (records: readonly SQSRecord[], batch?: BatchOptions) =>
    usage
      .track(BATCH_USAGE, () => processBatch(records, deps, batch))
      .finally(() => {
        for (const [type, { usage: used, tasks }] of usage.take()) {
          metrics.usage?.(type, used, tasks);
        }
        metrics.flush();
      });
  return {
    workerId,
    lambdaHandler: (event, context) =>
      run(
        event.Records,
        context === undefined ? {} : { remainingTimeMs: () => context.getRemainingTimeInMillis() },
      ),
    processBatch: run,
    poll: (poll) => pollLanes(poll, { lanes, sqs: sqsClient, store, logger, run }),
  };
}

/** Attaches the usage meter to a client, if any, and returns it. */
function metered<C extends SQSClient | DynamoDBClient | undefined>(client: C): C {
  if (client !== undefined) meterClient(client);
  return client;
}

/** Task types whose retry horizon is over half the queue's retention, one issue each. */
function horizonIssues(
  definitions: Iterable<TaskDefinition>,
  queueRetentionMs: number,
): ValidationIssue[] {
  if (!Number.isInteger(queueRetentionMs) || queueRetentionMs < 60_000) {
    return [
      {
        path: 'queueRetentionMs',
        message: `expected an integer number of milliseconds of at least 60000 (SQS's shortest retention), received ${queueRetentionMs}`,
      },
    ];
  }
  const issues: ValidationIssue[] = [];
  for (const { type, retry, timeoutMs } of definitions) {
    const message = retryHorizonIssue(
      { maxAttempts: retry.maxAttempts, maxDelayMs: retry.maxDelayMs, timeoutMs },
      queueRetentionMs,
    );
    if (message !== undefined) issues.push({ path: `${type}.retry`, message });
  }
  return issues;
}

/**
 * The progress interval a worker was given, checked.
 *
 * @throws ValidationError for anything but an integer of at least
 *   `Defaults.MIN_PROGRESS_INTERVAL_MS`, up to 15 minutes.
 */
function progressInterval(value: number | undefined): number {
  if (value === undefined) return Defaults.PROGRESS_INTERVAL_MS;
  const min = Defaults.MIN_PROGRESS_INTERVAL_MS;
  if (Number.isInteger(value) && value >= min && value <= 900_000) return value;
  throw new ValidationError('worker options', [
    {
      path: 'progressIntervalMs',
      message: `expected an integer from ${min} to 900000 (milliseconds), received ${String(value).slice(0, 40)}`,
    },
  ]);
}
