import { ConfigurationError } from './errors.js';

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
  /** The executor's EventBridge Scheduler schedule group. Env: `TASKLANE_SCHEDULE_GROUP`. */
  readonly scheduleGroup?: string | undefined;
  /** The role Scheduler assumes to send to the queue. Env: `TASKLANE_SCHEDULER_ROLE_ARN`. */
  readonly schedulerRoleArn?: string | undefined;
  /** Standard SQS queue for firings Scheduler could not deliver. Env: `TASKLANE_SCHEDULE_DLQ_ARN`. */
  readonly scheduleDeadLetterArn?: string | undefined;
}

/** Environment variables read by {@link resolveLocation}; the CDK construct sets them on its functions. */
export const EnvVars = {
  TABLE_NAME: 'TASKLANE_TABLE_NAME',
  QUEUE_URL: 'TASKLANE_QUEUE_URL',
  DLQ_URL: 'TASKLANE_DLQ_URL',
  QUEUE_ARN: 'TASKLANE_QUEUE_ARN',
  SCHEDULE_GROUP: 'TASKLANE_SCHEDULE_GROUP',
  SCHEDULER_ROLE_ARN: 'TASKLANE_SCHEDULER_ROLE_ARN',
  SCHEDULE_DLQ_ARN: 'TASKLANE_SCHEDULE_DLQ_ARN',
} as const;

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

/** Where an executor's scheduling resources are; see {@link resolveSchedulerLocation}. */
export interface SchedulerLocation {
  readonly groupName: string;
  readonly roleArn: string;
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
    roleArn,
    deadLetterArn,
    queueArn: pick(options.queueArn, EnvVars.QUEUE_ARN),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
