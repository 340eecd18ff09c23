import { Defaults, TableSchema } from './constants.js';
import { ValidationError, type ValidationIssue } from './errors.js';

/** Inputs of {@link executorSettings}. */
export interface ExecutorSettingsProps {
  /** Prefix of every resource name. @default 'tasklane' */
  readonly name?: string;
  /** The worker function's timeout, in seconds (Lambda allows up to 900). @default 60 */
  readonly workerTimeoutSeconds?: number;
  /** Receives before SQS moves a message to the DLQ; a safety net above maxAttempts. @default 50 */
  readonly maxReceiveCount?: number;
  /** The largest `maxAttempts` of any task type; `maxReceiveCount` must exceed it. @default 3 */
  readonly maxAttempts?: number;
}

/** One SQS queue: its name and CreateQueue attributes. */
export interface QueueSettings {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/**
 * The executor's AWS resources, described once. The CDK construct and the emulator's
 * provisioning both build from this object, so the two cannot drift.
 */
export interface ExecutorSettings {
  readonly workQueue: QueueSettings;
  readonly deadLetterQueue: QueueSettings;
  /**
   * EventBridge Scheduler: the executor's schedule group (delayed tasks' one-time schedules
   * and recurring schedules), and the standard queue receiving firings it could not deliver.
   */
  readonly scheduler: {
    readonly groupName: string;
    readonly deadLetterQueue: QueueSettings;
    /** Retry policy of every schedule's target (the service's maximums). */
    readonly maximumEventAgeSeconds: number;
    readonly maximumRetryAttempts: number;
  };
  readonly maxReceiveCount: number;
  readonly visibilityTimeoutSeconds: number;
  readonly table: {
    readonly name: string;
    readonly partitionKey: string;
    readonly ttlAttribute: string;
    readonly statusIndex: {
      readonly name: string;
      readonly partitionKey: string;
      readonly sortKey: string;
    };
  };
}

/** SQS's maximum retention (14 days): a dead letter is kept as long as SQS allows. */
const RETENTION_SECONDS = '1209600';
/** Visibility must outlast the worker's run; AWS recommends 6× the function timeout. */
const VISIBILITY_FACTOR = 6;

/**
 * Derives the resource settings. FIFO names need the `.fifo` suffix explicitly, which is
 * also what lets the CDK stack deploy into moto.
 *
 * @throws ValidationError listing every invalid prop.
 */
export function executorSettings(props: ExecutorSettingsProps = {}): ExecutorSettings {
  const name = props.name ?? 'tasklane';
  const timeout = props.workerTimeoutSeconds ?? 60;
  const maxAttempts = props.maxAttempts ?? Defaults.MAX_ATTEMPTS;
  const maxReceiveCount = props.maxReceiveCount ?? 50;
  const issues: ValidationIssue[] = [];
  if (!/^[A-Za-z0-9_-]{1,60}$/.test(name)) {
    issues.push({
      path: 'name',
      message: `expected 1-60 characters of A-Z a-z 0-9 _ -, received ${JSON.stringify(name)}`,
    });
  }
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 900) {
    issues.push({
      path: 'workerTimeoutSeconds',
      message: `expected an integer from 1 to 900, received ${timeout}`,
    });
  }
  if (
    !Number.isInteger(maxAttempts) ||
    maxAttempts < 1 ||
    maxAttempts > Defaults.MAX_ATTEMPTS_LIMIT
  ) {
    issues.push({
      path: 'maxAttempts',
      message: `expected an integer from 1 to ${Defaults.MAX_ATTEMPTS_LIMIT}, received ${maxAttempts}`,
    });
  }
  if (
    !Number.isInteger(maxReceiveCount) ||
    maxReceiveCount <= maxAttempts ||
    maxReceiveCount > 1000
  ) {
    issues.push({
      path: 'maxReceiveCount',
      message: `expected an integer above maxAttempts (${maxAttempts}) and at most 1000, received ${maxReceiveCount}`,
    });
  }
  if (issues.length > 0) throw new ValidationError('executor settings', issues);
  const visibilityTimeoutSeconds = Math.min(
    timeout * VISIBILITY_FACTOR,
    Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS,
  );
  return {
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
    maxReceiveCount,
    visibilityTimeoutSeconds,
    table: {
      name: `${name}-tasks`,
      partitionKey: TableSchema.PARTITION_KEY,
      ttlAttribute: TableSchema.TTL_ATTRIBUTE,
      statusIndex: {
        name: TableSchema.STATUS_INDEX,
        partitionKey: TableSchema.STATUS_INDEX_PARTITION_KEY,
        sortKey: TableSchema.STATUS_INDEX_SORT_KEY,
      },
    },
  };
}
