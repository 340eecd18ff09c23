import type { S3Client } from '@aws-sdk/client-s3';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { STSClient } from '@aws-sdk/client-sts';
import { ValidationError, type ValidationIssue } from '../core/errors.js';
import type { IntegrityOptions } from '../integrity/tag.js';
import type { TaskLogger } from '../observability/logger.js';
import { type TracingOption, tracingOptionIssue } from '../observability/tracing.js';
import type { ExecutorLocation } from '../settings/location.js';
import type { Retention } from '../settings/retention.js';
import type { DynamoDBClient } from '../store/table.js';
import type { DynamoDBStreamsClient } from '../store/table-stream.js';
import { checkOptionKeys } from './validate.js';

/** Options of {@link TaskClient}. */
export interface TaskClientOptions extends ExecutorLocation {
  /** The dead-letter queue, drained by `redrive`. Env: `TASKLANE_DLQ_URL`. */
  readonly deadLetterQueueUrl?: string | undefined;
  /** Injected DynamoDB client. @default a new client from the environment */
  readonly dynamodb?: DynamoDBClient | undefined;
  /**
   * Injected DynamoDB Streams client, for `watch()`. @default a new client, made on the first
   * watch, with the DynamoDB client's region, credentials and endpoint
   */
  readonly dynamodbStreams?: DynamoDBStreamsClient | undefined;
  /** Injected SQS client. @default a new client from the environment */
  readonly sqs?: SQSClient | undefined;
  /**
   * Largest accepted payload as UTF-8 JSON, in bytes.
   * @default 262144; 104857600 (100 MiB) with a `payloadBucket`
   */
  readonly maxPayloadBytes?: number | undefined;
  /**
   * With a `payloadBucket`, payloads larger than this (UTF-8 JSON bytes) are stored in S3
   * before the record is written, and the record holds the reference. 0 to 131072.
   * @default 65536
   */
  readonly payloadThresholdBytes?: number | undefined;
  /** Injected S3 client, for the payload bucket. @default a new client, made on first use */
  readonly s3?: S3Client | undefined;
  /** Must match the workers' setting. @default 8 */
  readonly statusShards?: number | undefined;
  /**
   * How long a SUCCEEDED or CANCELLED task is kept, and so how long its id stays reserved:
   * milliseconds after it finished, or `'forever'` (no TTL). DEAD tasks stay until purged.
   * Use the same value in producers, workers and the sweeper.
   * @default `TASKLANE_RETENTION_MS`, else 30 days
   */
  readonly retention?: Retention | undefined;
  readonly logger?: TaskLogger | undefined;
  /** @default Date.now */
  readonly clock?: (() => number) | undefined;
  /** Injected EventBridge Scheduler client. @default a new client from the environment */
  readonly scheduler?: SchedulerClient | undefined;
  /**
   * A `runAt` further out than this gets a one-time schedule; a nearer one is sent at once
   * and held back by the worker (a task with an ordering key holds its key meanwhile).
   * At most 3600000 (1 hour): the worker's hold-back must stay under SQS's 12-hour
   * visibility cap. @default 60000
   */
  readonly scheduleThresholdMs?: number | undefined;
  /**
   * Tag each new task with a KMS HMAC over its id, type, payload and maxAttempts, which the
   * worker and the sweeper verify (one kms:GenerateMac per created task; docs/security.md).
   * @default on when `TASKLANE_INTEGRITY_KEY_ID` is set, else off
   */
  readonly integrity?: IntegrityOptions | undefined;
  /**
   * Injected STS client, asked once (`GetCallerIdentity`) for the principal that operator
   * actions (redrive, cancel, purge, releaseKey, schedule pause, resume and delete) are
   * recorded as (docs/adr/0039-operator-audit.md). @default a new client, made on first use
   */
  readonly sts?: STSClient | undefined;
  /**
   * Store the enqueuing code's active OpenTelemetry span with each task (its W3C
   * `traceparent`, on the record and its message), for each attempt's span to link to.
   * `true` does so once the app has registered a tracer provider with `@opentelemetry/api` 1.x
   * (an optional peer dependency, never imported by Tasklane); `false` never
   * (docs/tracing.md). @default true
   */
  readonly tracing?: TracingOption | undefined;
  /**
   * The principal operator actions are recorded as, instead of asking STS: a name the caller
   * vouches for, e.g. a service's own. @default the STS caller identity's ARN
   */
  readonly principal?: string | undefined;
  /**
   * The worker function (the stack output `WorkerFunctionName`): `pauseLane` and `resumeLane`
   * switch only the event source mappings from the lane's queue to it. @default any mapping
   * from the lane's queue
   */
  readonly workerFunctionName?: string | undefined;
}

/**
 * Every option of {@link TaskClientOptions}, as a record so that the compiler keeps it
 * complete: a new option that is not listed here fails the type check.
 */
const OPTION_KEYS: Readonly<Record<keyof TaskClientOptions, true>> = {
  tableName: true,
  queueUrl: true,
  queueArn: true,
  scheduleGroup: true,
  delayedScheduleGroup: true,
  scheduleKmsKeyArn: true,
  schedulerRoleArn: true,
  delayedSchedulerRoleArn: true,
  scheduleDeadLetterArn: true,
  payloadBucket: true,
  lanes: true,
  deadLetterQueueUrl: true,
  dynamodb: true,
  dynamodbStreams: true,
  sqs: true,
  maxPayloadBytes: true,
  payloadThresholdBytes: true,
  s3: true,
  statusShards: true,
  retention: true,
  logger: true,
  clock: true,
  scheduler: true,
  scheduleThresholdMs: true,
  integrity: true,
  sts: true,
  principal: true,
  tracing: true,
  workerFunctionName: true,
};

/**
 * Fields of the locations Tasklane hands out to be passed to a TaskClient, a worker or a
 * sweeper as they are, which the client does not use: `eventBus`, the schedules' dead-letter queue URL and the
 * schedule pump's sender ids of a local executor's `location` and of `provision`.
 */
const LOCATION_ONLY_KEYS = [
  'eventBus',
  'scheduleDeadLetterQueueUrl',
  'schedulerSenderId',
  'delayedSchedulerSenderId',
] as const;

/** The option names a TaskClient accepts. */
export const TASK_CLIENT_OPTION_KEYS: readonly string[] = [
  ...Object.keys(OPTION_KEYS),
  ...LOCATION_ONLY_KEYS,
];

/**
 * Where a client's requests go, and as whom, is the SDK clients' configuration: what to do
 * instead of the options other libraries take for it.
 */
const SDK_SETTING_HINTS: Readonly<Record<string, string>> = {
  endpoint:
    'TaskClient has no endpoint option; set AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_DYNAMODB, _SQS, _SCHEDULER, _S3), or inject clients made with it (dynamodb, sqs, scheduler, s3)',
  region:
    'TaskClient has no region option; set AWS_REGION, or inject clients made with it (dynamodb, sqs, scheduler, s3)',
  credentials:
    'TaskClient has no credentials option; use the SDK credential chain (AWS_PROFILE, a role), or inject clients made with them (dynamodb, sqs, scheduler, s3)',
};

/**
 * Refuses options a TaskClient does not know, so that a misspelt setting, or an `endpoint`
 * meant for the SDK, is not ignored while the client talks to another table or another
 * endpoint.
 *
 * @throws ValidationError listing every unknown option, with the likely one meant (or, for
 *   `endpoint`, `region` and `credentials`, how to set them).
 */
export function checkClientOptions(options: unknown): void {
  const issues: ValidationIssue[] = [];
  checkOptionKeys(issues, options, TASK_CLIENT_OPTION_KEYS);
  const tracing = tracingOptionIssue(
    (options as { tracing?: unknown } | undefined)?.tracing,
    'options.tracing',
  );
  if (tracing !== undefined) issues.push(tracing);
  if (issues.length === 0) return;
  throw new ValidationError(
    'TaskClient options',
    issues.map((issue) => {
      const key = issue.path.slice('options.'.length);
      const hint = Object.hasOwn(SDK_SETTING_HINTS, key) ? SDK_SETTING_HINTS[key] : undefined;
      return hint === undefined
        ? issue
        : { path: issue.path, message: `unknown option ${JSON.stringify(key)}: ${hint}` };
    }),
  );
}
