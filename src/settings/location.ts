import { Defaults } from '../core/constants.js';
import { ConfigurationError, ValidationError } from '../core/errors.js';
import { delayedScheduleGroupName } from '../scheduler/names.js';
import { type LaneLocations, LaneQueues, laneEnvironment, lanesFromEnvironment } from './lanes.js';

/** Where an executor's resources are. Every field can also come from the environment. */
export interface ExecutorLocation {
  /** The task table. Env: `TASKLANE_TABLE_NAME`. */
  readonly tableName?: string | undefined;
  /** The FIFO work queue's URL. Env: `TASKLANE_QUEUE_URL`. */
  readonly queueUrl?: string | undefined;
  /**
   * The work queue's ARN, the target of schedules. Env: `TASKLANE_QUEUE_ARN`.
   * @default looked up once from the queue URL (needs sqs:GetQueueAttributes)
   */
  readonly queueArn?: string | undefined;
  /**
   * The executor's EventBridge Scheduler schedule group, of recurring schedules.
   * Env: `TASKLANE_SCHEDULE_GROUP`.
   */
  readonly scheduleGroup?: string | undefined;
  /**
   * The group of delayed tasks' one-time schedules. Env: `TASKLANE_DELAYED_SCHEDULE_GROUP`.
   * @default `<scheduleGroup>.at`
   */
  readonly delayedScheduleGroup?: string | undefined;
  /**
   * The customer-managed KMS key that Scheduler encrypts the schedules' target input with
   * (its `KmsKeyArn`). Env: `TASKLANE_KMS_KEY_ARN`.
   * @default none: Scheduler's AWS owned key
   */
  readonly scheduleKmsKeyArn?: string | undefined;
  /**
   * The role Scheduler assumes to deliver recurring schedules' firings.
   * Env: `TASKLANE_SCHEDULER_ROLE_ARN`.
   */
  readonly schedulerRoleArn?: string | undefined;
  /**
   * The role Scheduler assumes to deliver delayed tasks, which trusts only the delayed group.
   * Env: `TASKLANE_DELAYED_SCHEDULER_ROLE_ARN`.
   * @default `schedulerRoleArn` (a stack from before the roles were split)
   */
  readonly delayedSchedulerRoleArn?: string | undefined;
  /** Standard SQS queue for firings Scheduler could not deliver. Env: `TASKLANE_SCHEDULE_DLQ_ARN`. */
  readonly scheduleDeadLetterArn?: string | undefined;
  /**
   * The S3 bucket of large payloads and results (claim check; docs/large-payloads.md).
   * Env: `TASKLANE_PAYLOAD_BUCKET`. @default none: payloads and results stay on the record
   */
  readonly payloadBucket?: string | undefined;
  /**
   * The executor's lanes, keyed by lane name (docs/lanes.md): each lane's work queue, its ARN
   * and its DLQ. Env: `TASKLANE_LANE_QUEUE_URLS`, `TASKLANE_LANE_QUEUE_ARNS` and
   * `TASKLANE_LANE_DLQ_URLS`, JSON objects keyed by lane. `queueUrl` stays the default lane's.
   * @default the default lane only
   */
  readonly lanes?: LaneLocations | undefined;
}

/** Environment variables read by {@link resolveLocation}; the CDK construct sets them on its functions. */
export const EnvVars = {
  TABLE_NAME: 'TASKLANE_TABLE_NAME',
  QUEUE_URL: 'TASKLANE_QUEUE_URL',
  DLQ_URL: 'TASKLANE_DLQ_URL',
  QUEUE_ARN: 'TASKLANE_QUEUE_ARN',
  SCHEDULE_GROUP: 'TASKLANE_SCHEDULE_GROUP',
  DELAYED_SCHEDULE_GROUP: 'TASKLANE_DELAYED_SCHEDULE_GROUP',
  /** The executor's customer-managed key, which schedules are encrypted with. */
  KMS_KEY_ARN: 'TASKLANE_KMS_KEY_ARN',
  SCHEDULER_ROLE_ARN: 'TASKLANE_SCHEDULER_ROLE_ARN',
  /** The delayed tasks' schedules' role (docs/adr/0036-trust-model-hardening.md). */
  DELAYED_SCHEDULER_ROLE_ARN: 'TASKLANE_DELAYED_SCHEDULER_ROLE_ARN',
  SCHEDULE_DLQ_ARN: 'TASKLANE_SCHEDULE_DLQ_ARN',
  /** How long a finished task's id stays reserved: milliseconds, or `forever`. */
  RETENTION_MS: 'TASKLANE_RETENTION_MS',
  /** Shards per status of the status index (docs/status-index.md). */
  STATUS_SHARDS: 'TASKLANE_STATUS_SHARDS',
  /** The integrity tag's KMS HMAC key (id or ARN); set when the executor has `integrity`. */
  INTEGRITY_KEY_ID: 'TASKLANE_INTEGRITY_KEY_ID',
  /** Keys that tagged records before the current one (ids or ARNs, comma-separated). */
  INTEGRITY_PREVIOUS_KEY_IDS: 'TASKLANE_INTEGRITY_PREVIOUS_KEY_IDS',
  /** The claim-check bucket of large payloads and results; set when the executor has one. */
  PAYLOAD_BUCKET: 'TASKLANE_PAYLOAD_BUCKET',
  /** The EventBridge bus of lifecycle events; set when the executor has `events` (docs/events.md). */
  EVENT_BUS: 'TASKLANE_EVENT_BUS',
  /** The lifecycle events' source, `tasklane.<executor name>`. */
  EVENT_SOURCE: 'TASKLANE_EVENT_SOURCE',
} as const;

/** A location with the other settings a process reads from its environment. */
export interface DescribedLocation extends ExecutorLocation {
  readonly deadLetterQueueUrl?: string | undefined;
  /** The integrity tag's key, when integrity is on. */
  readonly integrity?: { readonly keyId: string } | undefined;
  readonly statusShards?: number | undefined;
  /** The bus of lifecycle events, when they are on. */
  readonly eventBus?: string | undefined;
}

/**
 * The `TASKLANE_*` variables that describe `location` to another process: the inverse of
 * {@link resolveLocation} and {@link resolveSchedulerLocation}, so that a `new TaskClient()`,
 * a worker, a sweeper or the `tasklane` command there finds the same executor. Only what the
 * location names is set.
 */
export function locationEnvironment(location: DescribedLocation): Record<string, string> {
  const variables: [string, string | number | undefined][] = [
    [EnvVars.TABLE_NAME, location.tableName],
    [EnvVars.QUEUE_URL, location.queueUrl],
    [EnvVars.QUEUE_ARN, location.queueArn],
    [EnvVars.DLQ_URL, location.deadLetterQueueUrl],
    [EnvVars.SCHEDULE_GROUP, location.scheduleGroup],
    [EnvVars.DELAYED_SCHEDULE_GROUP, location.delayedScheduleGroup],
    [EnvVars.KMS_KEY_ARN, location.scheduleKmsKeyArn],
    [EnvVars.SCHEDULER_ROLE_ARN, location.schedulerRoleArn],
    [EnvVars.DELAYED_SCHEDULER_ROLE_ARN, location.delayedSchedulerRoleArn],
    [EnvVars.SCHEDULE_DLQ_ARN, location.scheduleDeadLetterArn],
    [EnvVars.PAYLOAD_BUCKET, location.payloadBucket],
    [EnvVars.INTEGRITY_KEY_ID, location.integrity?.keyId],
    [EnvVars.STATUS_SHARDS, location.statusShards],
    [EnvVars.EVENT_BUS, location.eventBus],
  ];
  return {
    ...Object.fromEntries(
      variables.flatMap(([name, value]) =>
        value === undefined || value === '' ? [] : [[name, String(value)]],
      ),
    ),
    ...(location.lanes === undefined ? {} : laneEnvironment(location.lanes)),
  };
}

/**
 * Fills an executor's location from explicit options, then the environment.
 *
 * @throws ConfigurationError naming every missing setting at once.
 */
export function resolveLocation(
  options: ExecutorLocation,
  env: NodeJS.ProcessEnv = process.env,
): { tableName: string; queueUrl: string } {
  const tableName = options.tableName ?? env[EnvVars.TABLE_NAME];
  const queueUrl = options.queueUrl ?? env[EnvVars.QUEUE_URL];
  const missing: string[] = [];
  if (tableName === undefined || tableName === '')
    missing.push(`tableName (or ${EnvVars.TABLE_NAME})`);
  if (queueUrl === undefined || queueUrl === '') missing.push(`queueUrl (or ${EnvVars.QUEUE_URL})`);
  if (tableName === undefined || queueUrl === undefined || missing.length > 0) {
    throw new ConfigurationError(
      `Tasklane is not configured: missing ${missing.join(' and ')}. Pass them as options or set the environment variables.`,
    );
  }
  return { tableName, queueUrl };
}

/**
 * The executor's lanes' queues: the default lane at `queueUrl`, and the lanes of
 * `options.lanes`, else of the environment.
 *
 * @throws ConfigurationError when a lane variable of the environment is not a JSON object.
 */
export function resolveLaneQueues(
  options: ExecutorLocation & { readonly deadLetterQueueUrl?: string | undefined },
  queueUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): LaneQueues {
  return new LaneQueues(
    {
      queueUrl,
      queueArn: options.queueArn ?? nonEmpty(env[EnvVars.QUEUE_ARN]),
      deadLetterQueueUrl: options.deadLetterQueueUrl ?? nonEmpty(env[EnvVars.DLQ_URL]),
    },
    options.lanes ?? lanesFromEnvironment(env),
  );
}

/** Where an executor's scheduling resources are; see {@link resolveSchedulerLocation}. */
export interface SchedulerLocation {
  /** The group of recurring schedules. */
  readonly groupName: string;
  /** The group of delayed tasks' one-time schedules. */
  readonly delayedGroupName: string;
  /** Scheduler's `KmsKeyArn` for every schedule; undefined for its AWS owned key. */
  readonly kmsKeyArn: string | undefined;
  /** The recurring schedules' role. */
  readonly roleArn: string;
  /** The delayed tasks' schedules' role. */
  readonly delayedRoleArn: string;
  readonly deadLetterArn: string;
  /** Undefined when it must be looked up from the queue URL. */
  readonly queueArn: string | undefined;
}

/**
 * Fills the scheduling settings from explicit options, then the environment. Called only
 * when a scheduling feature is used, so executors without one need no such settings.
 *
 * @throws ConfigurationError naming every missing setting at once.
 */
export function resolveSchedulerLocation(
  options: ExecutorLocation,
  env: NodeJS.ProcessEnv = process.env,
): SchedulerLocation {
  const pick = (value: string | undefined, name: string) =>
    value !== undefined && value !== '' ? value : nonEmpty(env[name]);
  const groupName = pick(options.scheduleGroup, EnvVars.SCHEDULE_GROUP);
  const roleArn = pick(options.schedulerRoleArn, EnvVars.SCHEDULER_ROLE_ARN);
  const deadLetterArn = pick(options.scheduleDeadLetterArn, EnvVars.SCHEDULE_DLQ_ARN);
  const missing: string[] = [];
  if (groupName === undefined) missing.push(`scheduleGroup (or ${EnvVars.SCHEDULE_GROUP})`);
  if (roleArn === undefined) missing.push(`schedulerRoleArn (or ${EnvVars.SCHEDULER_ROLE_ARN})`);
  if (deadLetterArn === undefined) {
    missing.push(`scheduleDeadLetterArn (or ${EnvVars.SCHEDULE_DLQ_ARN})`);
  }
  if (groupName === undefined || roleArn === undefined || deadLetterArn === undefined) {
    throw new ConfigurationError(
      `Delayed and recurring tasks are not configured: missing ${missing.join(', ')}. ` +
        "Pass them as options or set the environment variables (the TaskExecutor stack's outputs).",
    );
  }
  return {
    groupName,
    delayedGroupName:
      pick(options.delayedScheduleGroup, EnvVars.DELAYED_SCHEDULE_GROUP) ??
      delayedScheduleGroupName(groupName),
    kmsKeyArn: pick(options.scheduleKmsKeyArn, EnvVars.KMS_KEY_ARN),
    roleArn,
    delayedRoleArn:
      pick(options.delayedSchedulerRoleArn, EnvVars.DELAYED_SCHEDULER_ROLE_ARN) ?? roleArn,
    deadLetterArn,
    queueArn: pick(options.queueArn, EnvVars.QUEUE_ARN),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The largest `scheduleThresholdMs`. A task due within the threshold is sent at once and the
 * worker holds its message back until runAt by changing its visibility, which SQS caps at
 * 12 hours per receive; beyond that the change is refused and the message churns to the
 * DLQ. One hour leaves a wide margin, and bounds how long a delayed task with an ordering
 * key holds its key while it waits (see docs/scheduling.md).
 */
export const MAX_SCHEDULE_THRESHOLD_MS = 3_600_000;

/**
 * Checks the `scheduleThresholdMs` option.
 *
 * @returns the threshold, the default when undefined.
 * @throws ValidationError unless it is a whole number of milliseconds from 0 to
 *   {@link MAX_SCHEDULE_THRESHOLD_MS}.
 */
export function scheduleThreshold(value: unknown): number {
  if (value === undefined) return Defaults.SCHEDULE_THRESHOLD_MS;
  if (
    typeof value === 'number' &&
    Number.isSafeInteger(value) &&
    value >= 0 &&
    value <= MAX_SCHEDULE_THRESHOLD_MS
  ) {
    return value;
  }
  throw new ValidationError('TaskClient options', [
    {
      path: 'scheduleThresholdMs',
      message: `expected a whole number of milliseconds from 0 to ${MAX_SCHEDULE_THRESHOLD_MS} (1 hour; the worker's hold-back must stay under SQS's 12-hour visibility cap), received ${typeof value === 'number' ? value : typeof value}`,
    },
  ]);
}
