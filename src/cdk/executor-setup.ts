/**
 * Two steps of building a TaskExecutor: resolving its props into the executor's settings
 * (validated, with the defaults the construct documents), and the sweeper's permissions
 * and scheduling environment.
 */
import path from 'node:path';
import { Duration, type Stack, Token } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { EnvVars } from '../config.js';
import { type ExecutorSettings, executorSettings } from '../resources.js';
import type { Retention } from '../store/retention.js';
import type { ExecutorFunction } from './executor-functions.js';
import { KEY_USE_ACTIONS } from './executor-grants.js';
import type { TaskExecutorProps } from './task-executor-props.js';
import { validateTaskExecutorProps } from './validate-props.js';

/** The settings of a TaskExecutor and the props it resolved them from. */
export interface ResolvedExecutor {
  readonly settings: ExecutorSettings;
  readonly name: string;
  readonly workerEntry: string | undefined;
  readonly workerTimeout: Duration;
  readonly maxConcurrency: number;
  readonly retentionMs: Retention;
}

/** Resolves and validates a TaskExecutor's props. @throws ValidationError */
export function resolveExecutorSettings(stack: Stack, props: TaskExecutorProps): ResolvedExecutor {
  // Required by the types; a JavaScript caller that leaves it out gets a ValidationError.
  const workerEntry = props.workerEntry === undefined ? undefined : path.resolve(props.workerEntry);
  const workerTimeout = props.workerTimeout ?? Duration.seconds(60);
  const maxConcurrency = props.maxConcurrency ?? 10;
  const retention = props.retention ?? Duration.days(30);
  const retentionMs =
    retention === 'forever' ? retention : retention.toMilliseconds({ integral: false });
  const settingsProps = {
    name: props.name ?? stack.stackName,
    workerTimeoutSeconds: workerTimeout.toSeconds({ integral: false }),
    ...(props.visibilityTimeout && {
      visibilityTimeoutSeconds: props.visibilityTimeout.toSeconds({ integral: false }),
    }),
    ...(props.maxAttempts !== undefined && { maxAttempts: props.maxAttempts }),
    ...(props.maxReceiveCount !== undefined && { maxReceiveCount: props.maxReceiveCount }),
  };
  validateTaskExecutorProps({
    ...settingsProps,
    workerEntry,
    workerMemorySize: props.workerMemorySize,
    batchSize: props.batchSize,
    maxConcurrency,
    reservedConcurrency: props.reservedConcurrency,
    oldestMessageAgeThresholdSeconds: props.oldestMessageAgeThreshold?.toSeconds({
      integral: false,
    }),
    maxRetryDelaySeconds: props.maxRetryDelay?.toSeconds({ integral: false }),
    retentionMs,
  });
  const settings = executorSettings(settingsProps, {
    isUnresolved: (v) => Token.isUnresolved(v),
  });
  return {
    settings,
    name: settingsProps.name,
    workerEntry,
    workerTimeout,
    maxConcurrency,
    retentionMs,
  };
}

/** What {@link allowSweeper} grants on. */
export interface SweeperTargets {
  readonly table: Table;
  readonly statusIndexName: string;
  readonly workQueue: Queue;
  readonly scheduleDeadLetterQueue: Queue;
  readonly delayedSchedulesArns: readonly string[];
  readonly scheduleGroupName: string;
  readonly schedulerRoleArn: string;
  readonly key: IKey | undefined;
}

/** Gives the sweeper exactly what a sweep calls, and the scheduling settings. */
export function allowSweeper(sweeper: ExecutorFunction, targets: SweeperTargets): void {
  const { table, workQueue, key } = targets;
  const statusIndexArn = `${table.tableArn}/index/${targets.statusIndexName}`;
  // Exactly what a sweep calls: it pages the status index, moves records on with
  // conditional updates, (re)sends messages (SendMessageBatch), and repairs overdue
  // delayed tasks by recreating their one-time schedule (or sending them when due).
  sweeper.allow(['dynamodb:Query'], [statusIndexArn]);
  sweeper.allow(['dynamodb:UpdateItem'], [table.tableArn]);
  sweeper.allow(['sqs:SendMessage'], [workQueue.queueArn]);
  sweeper.allow(['scheduler:CreateSchedule'], [...targets.delayedSchedulesArns]);
  sweeper.allow(['iam:PassRole'], [targets.schedulerRoleArn], {
    StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
  });
  if (key) sweeper.allow(KEY_USE_ACTIONS, [key.keyArn]);
  const schedulingEnvironment = {
    [EnvVars.SCHEDULE_GROUP]: targets.scheduleGroupName,
    [EnvVars.SCHEDULER_ROLE_ARN]: targets.schedulerRoleArn,
    [EnvVars.SCHEDULE_DLQ_ARN]: targets.scheduleDeadLetterQueue.queueArn,
  };
  for (const [name, value] of Object.entries(schedulingEnvironment)) {
    sweeper.function.addEnvironment(name, value);
  }
}
