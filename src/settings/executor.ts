import { Defaults, TableSchema } from '../core/constants.js';
import { ValidationError, type ValidationIssue } from '../core/errors.js';
import { delayedScheduleGroupName } from '../scheduler/names.js';
import { type LaneProps, type LaneSettings, laneIssues, laneSettings } from './lanes.js';

/** Inputs of {@link executorSettings}. */
export interface ExecutorSettingsProps {
  /** Prefix of every resource name. @default 'tasklane' */
  readonly name?: string;
  /** The worker function's timeout, in seconds (Lambda allows up to 900). @default 60 */
  readonly workerTimeoutSeconds?: number;
  /**
   * The work queue's visibility timeout, in seconds: at least 6× the worker timeout (AWS's
   * advice for SQS event sources) and at most 12 hours. @default 6 × workerTimeoutSeconds
   */
  readonly visibilityTimeoutSeconds?: number;
  /** Receives before SQS moves a message to the DLQ; a safety net above maxAttempts. @default 50 */
  readonly maxReceiveCount?: number;
  /** The largest `maxAttempts` of any task type; `maxReceiveCount` must exceed it. @default 3 */
  readonly maxAttempts?: number;
  /**
   * The executor's lanes (docs/lanes.md): one FIFO work queue and DLQ each, named
   * `<name>-<lane>-work.fifo` and `<name>-<lane>-dlq.fifo`; the `default` lane is the
   * executor's own queues. @default no lanes: the default lane only
   */
  readonly lanes?: Readonly<Record<string, LaneProps>>;
}

/** Options of {@link executorSettings} and {@link settingsIssues}. */
export interface SettingsValidationOptions {
  /**
   * True for a value that is not known yet (a CDK Token); such values are not validated.
   * @default nothing is skipped
   */
  readonly isUnresolved?: (value: unknown) => boolean;
}

/** One SQS queue: its name and CreateQueue attributes. */
export interface QueueSettings {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** The task table's names: key, TTL attribute, stream and the sharded status index. */
export interface TableSettings {
  readonly name: string;
  readonly partitionKey: string;
  readonly ttlAttribute: string;
  /**
   * The table's DynamoDB stream: what its records carry. `watch()` and `tasklane tail` read
   * it (docs/adr/0049-watch-reads-the-table-stream.md).
   */
  readonly streamViewType: typeof TableSchema.STREAM_VIEW_TYPE;
  readonly statusIndex: {
    readonly name: string;
    readonly partitionKey: string;
    readonly sortKey: string;
    /** The attributes projected besides the keys (an INCLUDE projection). */
    readonly projection: readonly string[];
  };
}

/**
 * The executor's AWS resources, described once. The CDK construct and the emulator's
 * provisioning both build from this object, so the two cannot drift.
 */
export interface ExecutorSettings {
  readonly workQueue: QueueSettings;
  readonly deadLetterQueue: QueueSettings;
  /**
   * EventBridge Scheduler: the executor's schedule groups (recurring schedules in the main
   * one, delayed tasks' one-time schedules in `<group>.at`), and the standard queue
   * receiving firings it could not deliver.
   */
  readonly scheduler: {
    readonly groupName: string;
    readonly delayedGroupName: string;
    readonly deadLetterQueue: QueueSettings;
    /** Retry policy of every schedule's target (the service's maximums). */
    readonly maximumEventAgeSeconds: number;
    readonly maximumRetryAttempts: number;
  };
  readonly maxReceiveCount: number;
  readonly workerTimeoutSeconds: number;
  readonly visibilityTimeoutSeconds: number;
  readonly table: TableSettings;
  /**
   * Every lane, the `default` one (whose queues are {@link workQueue} and
   * {@link deadLetterQueue}) included; empty for an executor without lanes.
   */
  readonly lanes: Readonly<Record<string, LaneSettings>>;
}

/** SQS's maximum retention (14 days): a dead letter is kept as long as SQS allows. */
const RETENTION_SECONDS = '1209600';
/** Visibility must outlast the worker's run; AWS recommends 6× the function timeout. */
export const VISIBILITY_FACTOR = 6;

/**
 * Lists every invalid prop of {@link executorSettings}, quoting the value received.
 * Values that `options.isUnresolved` flags are skipped.
 */
export function settingsIssues(
  props: ExecutorSettingsProps = {},
  options: SettingsValidationOptions = {},
): ValidationIssue[] {
  const known = (value: unknown) => !(options.isUnresolved?.(value) ?? false);
  const name = props.name ?? 'tasklane';
  const timeout = props.workerTimeoutSeconds ?? 60;
  const maxAttempts = props.maxAttempts ?? Defaults.MAX_ATTEMPTS;
  const maxReceiveCount = props.maxReceiveCount ?? 50;
  const visibility = props.visibilityTimeoutSeconds;
  const issues: ValidationIssue[] = [];
  if (known(name) && !/^[A-Za-z0-9_-]{1,60}$/.test(name)) {
    issues.push({
      path: 'name',
      message: `expected 1-60 characters of A-Z a-z 0-9 _ -, received ${JSON.stringify(name)}`,
    });
  }
  const timeoutValid = Number.isInteger(timeout) && timeout >= 1 && timeout <= 900;
  if (known(timeout) && !timeoutValid) {
    issues.push({
      path: 'workerTimeoutSeconds',
      message: `expected an integer from 1 to 900, received ${timeout}`,
    });
  }
  const attemptsValid =
    Number.isInteger(maxAttempts) && maxAttempts >= 1 && maxAttempts <= Defaults.MAX_ATTEMPTS_LIMIT;
  if (known(maxAttempts) && !attemptsValid) {
    issues.push({
      path: 'maxAttempts',
      message: `expected an integer from 1 to ${Defaults.MAX_ATTEMPTS_LIMIT}, received ${maxAttempts}`,
    });
  }
  if (
    known(maxReceiveCount) &&
    known(maxAttempts) &&
    (!Number.isInteger(maxReceiveCount) || maxReceiveCount <= maxAttempts || maxReceiveCount > 1000)
  ) {
    issues.push({
      path: 'maxReceiveCount',
      message: `expected an integer above maxAttempts (${maxAttempts}) and at most 1000, received ${maxReceiveCount}`,
    });
  }
  if (visibility !== undefined && known(visibility) && known(timeout)) {
    const floor = timeoutValid ? timeout * VISIBILITY_FACTOR : 1;
    const max = Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS;
    if (!Number.isInteger(visibility) || visibility < floor || visibility > max) {
      issues.push({
        path: 'visibilityTimeoutSeconds',
        message: `expected an integer from ${floor} (${VISIBILITY_FACTOR} × the worker timeout of ${timeout} s) to ${max}, received ${visibility}`,
      });
    }
  }
  issues.push(...laneIssues(name, props.lanes, known));
  return issues;
}

/**
 * Derives the resource settings. FIFO names need the `.fifo` suffix explicitly, which is
 * also what lets the CDK stack deploy into moto.
 *
 * @throws ValidationError listing every invalid prop.
 */
export function executorSettings(
  props: ExecutorSettingsProps = {},
  options: SettingsValidationOptions = {},
): ExecutorSettings {
  const issues = settingsIssues(props, options);
  if (issues.length > 0) throw new ValidationError('executor settings', issues);
  const name = props.name ?? 'tasklane';
  const workerTimeoutSeconds = props.workerTimeoutSeconds ?? 60;
  const visibilityTimeoutSeconds =
    props.visibilityTimeoutSeconds ??
    Math.min(workerTimeoutSeconds * VISIBILITY_FACTOR, Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS);
  const settings = {
    workQueue: {
      name: `${name}-work.fifo`,
      attributes: {
        FifoQueue: 'true',
        // Scheduler cannot set a deduplication id; the SDK always sets one explicitly.
        ContentBasedDeduplication: 'true',
        DeduplicationScope: 'messageGroup',
        FifoThroughputLimit: 'perMessageGroupId',
        VisibilityTimeout: String(visibilityTimeoutSeconds),
        MessageRetentionPeriod: RETENTION_SECONDS,
        SqsManagedSseEnabled: 'true',
      },
    },
    deadLetterQueue: {
      name: `${name}-dlq.fifo`,
      attributes: {
        FifoQueue: 'true',
        MessageRetentionPeriod: RETENTION_SECONDS,
        SqsManagedSseEnabled: 'true',
      },
    },
    scheduler: {
      // Group names allow 64 of [0-9a-zA-Z-_.]; the executor name (60 of [A-Za-z0-9_-]) fits.
      groupName: name,
      delayedGroupName: delayedScheduleGroupName(name),
      deadLetterQueue: {
        // Scheduler's dead-letter queue must be a standard queue, even for a FIFO target.
        name: `${name}-schedule-dlq`,
        attributes: {
          MessageRetentionPeriod: RETENTION_SECONDS,
          SqsManagedSseEnabled: 'true',
        },
      },
      maximumEventAgeSeconds: Defaults.SCHEDULE_MAX_EVENT_AGE_SECONDS,
      maximumRetryAttempts: Defaults.SCHEDULE_MAX_RETRY_ATTEMPTS,
    },
    maxReceiveCount: props.maxReceiveCount ?? 50,
    workerTimeoutSeconds,
    visibilityTimeoutSeconds,
    table: {
      name: `${name}-tasks`,
      partitionKey: TableSchema.PARTITION_KEY,
      ttlAttribute: TableSchema.TTL_ATTRIBUTE,
      streamViewType: TableSchema.STREAM_VIEW_TYPE,
      statusIndex: {
        name: TableSchema.STATUS_INDEX,
        partitionKey: TableSchema.STATUS_INDEX_PARTITION_KEY,
        sortKey: TableSchema.STATUS_INDEX_SORT_KEY,
        projection: TableSchema.STATUS_INDEX_PROJECTION,
      },
    },
  };
  const lanes = laneSettings(name, props.lanes, {
    work: settings.workQueue,
    dlq: settings.deadLetterQueue,
  });
  return { ...settings, lanes };
}
