/**
 * TaskExecutor: a Tasklane executor in one construct. SQS FIFO work queue and DLQ, the
 * worker Lambda behind an SQS event source mapping, the DynamoDB task table, the scheduler's
 * group and role, the sweeper on a one-minute schedule, alarms, a dashboard and outputs.
 * Queue and table settings come from `executorSettings()`, which the emulator's
 * provisioning uses too.
 */
import path from 'node:path';
import { CfnOutput, Duration, Stack, Token } from 'aws-cdk-lib';
import type { Metric, MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EnvVars, StackOutputSuffix } from '../src/config.js';
import { type ExecutorSettings, executorSettings } from '../src/resources.js';
import { ExecutorFunction } from './executor-functions.js';
import { ExecutorMonitoring } from './monitoring.js';
import { acknowledgeNagFindings, type NagAcknowledgement } from './nag-acknowledgements.js';
import { queueProps } from './queue-props.js';
import { ExecutorScheduling } from './scheduling.js';
import type { TaskExecutorProps } from './task-executor-props.js';
import { createTaskTable } from './task-table.js';
import { validateTaskExecutorProps } from './validate-props.js';

export type { TaskExecutorProps } from './task-executor-props.js';

/** A Tasklane executor. See {@link TaskExecutorProps}. */
export class TaskExecutor extends Construct {
  /** The resolved names and queue attributes, shared with the emulator's provisioning. */
  readonly settings: ExecutorSettings;
  readonly workQueue: Queue;
  readonly deadLetterQueue: Queue;
  /** Standard queue for failed schedule deliveries and failed sweeper runs. */
  readonly scheduleDeadLetterQueue: Queue;
  readonly table: Table;
  readonly worker: IFunction;
  readonly sweeper: IFunction;
  readonly scheduling: ExecutorScheduling;
  readonly monitoring: ExecutorMonitoring;
  /** The cdk-nag findings acknowledged on this executor's resources, with their reasons. */
  readonly nagAcknowledgements: readonly NagAcknowledgement[];

  constructor(scope: Construct, id: string, props: TaskExecutorProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    const workerEntry = path.resolve(props.workerEntry ?? 'functions/worker.ts');
    const workerTimeout = props.workerTimeout ?? Duration.seconds(60);
    const maxConcurrency = props.maxConcurrency ?? 10;
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
    });
    const settings = executorSettings(settingsProps, {
      isUnresolved: (v) => Token.isUnresolved(v),
    });
    this.settings = settings;
    const name = settingsProps.name;

    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', queueProps(settings.deadLetterQueue));
    this.workQueue = new Queue(this, 'WorkQueue', {
      ...queueProps(settings.workQueue),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
    });
    this.scheduleDeadLetterQueue = new Queue(
      this,
      'ScheduleDeadLetterQueue',
      queueProps(settings.scheduler.deadLetterQueue),
    );
    this.table = createTaskTable(this, 'Table', settings.table, props);

    const environment = {
      [EnvVars.TABLE_NAME]: this.table.tableName,
      [EnvVars.QUEUE_URL]: this.workQueue.queueUrl,
      POWERTOOLS_SERVICE_NAME: `tasklane-${name}`,
    };
    const common = {
      logRetention: props.logRetention ?? RetentionDays.ONE_YEAR,
      logEncryptionKey: props.logEncryptionKey,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
    };
    const worker = new ExecutorFunction(this, 'Worker', {
      ...common,
      entry: workerEntry,
      description: `the Tasklane worker of ${name}`,
      logGroupName: `/tasklane/${name}/worker`,
      timeout: workerTimeout,
      memorySize: props.workerMemorySize ?? 512,
      environment: { ...props.workerEnvironment, ...environment },
      reservedConcurrency: props.reservedConcurrency,
    });
    // Exactly what the worker calls: the store's reads and conditional updates, and the
    // event source mapping's and the visibility controller's SQS actions.
    worker.allow(['dynamodb:GetItem', 'dynamodb:UpdateItem'], [this.table.tableArn]);
    worker.allow(
      [
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
      ],
      [this.workQueue.queueArn],
    );
    worker.function.addEventSource(
      new SqsEventSource(this.workQueue, {
        batchSize: props.batchSize ?? 10,
        maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    this.worker = worker.function;

    const sweeper = new ExecutorFunction(this, 'Sweeper', {
      ...common,
      entry: path.resolve(import.meta.dirname, '../functions/sweeper.ts'),
      description: `the Tasklane sweeper of ${name}`,
      logGroupName: `/tasklane/${name}/sweeper`,
      timeout: Duration.seconds(60),
      memorySize: 256,
      environment,
      // One sweep at a time: overlapping sweeps would only race for the same records.
      reservedConcurrency: 1,
      deadLetterQueue: this.scheduleDeadLetterQueue,
    });
    this.sweeper = sweeper.function;

    this.scheduling = new ExecutorScheduling(this, 'Scheduling', {
      scheduleGroupName: settings.scheduler.groupName,
      workQueue: this.workQueue,
      deadLetterQueue: this.scheduleDeadLetterQueue,
      sweeper: this.sweeper,
    });
    this.monitoring = new ExecutorMonitoring(this, 'Monitoring', {
      executor: this,
      namePrefix: `tasklane-${name}`,
      oldestMessageAgeThreshold: props.oldestMessageAgeThreshold ?? Duration.minutes(15),
      alarmActions: props.alarmActions ?? [],
    });
    this.addOutputs(id, settings);
    this.nagAcknowledgements = acknowledgeNagFindings({ executor: this, worker, sweeper, props });
  }

  /**
   * Lets a producer enqueue tasks (TaskClient.enqueue, enqueueBatch) and, once scheduling
   * lands, create and delete their schedules.
   *
   * Actions: `dynamodb:PutItem` and `dynamodb:UpdateItem` on the table; `sqs:SendMessage`,
   * `sqs:GetQueueAttributes` and `sqs:GetQueueUrl` on the work queue (the queue's own
   * grantSendMessages); `scheduler:CreateSchedule` and `scheduler:DeleteSchedule` in the
   * executor's schedule group; `iam:PassRole` of the scheduler role, to Scheduler only.
   */
  grantEnqueue(grantee: IGrantable): Grant {
    const stack = Stack.of(this);
    const schedules = stack.formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.settings.scheduler.groupName}/*`,
    });
    return Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resourceArns: [this.table.tableArn],
    })
      .combine(this.workQueue.grantSendMessages(grantee))
      .combine(
        Grant.addToPrincipal({
          grantee,
          actions: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
          resourceArns: [schedules],
        }),
      )
      .combine(
        Grant.addToPrincipal({
          grantee,
          actions: ['iam:PassRole'],
          resourceArns: [this.scheduling.schedulerRole.roleArn],
          conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        }),
      );
  }

  /**
   * Lets an observer read tasks (TaskClient.get, wait, list).
   *
   * Actions: `dynamodb:GetItem` on the table; `dynamodb:Query` on the table and its status
   * index.
   */
  grantRead(grantee: IGrantable): Grant {
    const index = `${this.table.tableArn}/index/${this.settings.table.statusIndex.name}`;
    return Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:GetItem'],
      resourceArns: [this.table.tableArn],
    }).combine(
      Grant.addToPrincipal({
        grantee,
        actions: ['dynamodb:Query'],
        resourceArns: [this.table.tableArn, index],
      }),
    );
  }

  /** Messages in the work queue's DLQ (maximum over the period). */
  metricDeadLetterDepth(props?: MetricOptions): Metric {
    return this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      statistic: 'Maximum',
      ...props,
    });
  }

  /** Age of the oldest message in the work queue, in seconds (maximum over the period). */
  metricOldestMessageAge(props?: MetricOptions): Metric {
    return this.workQueue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', ...props });
  }

  /** Worker invocations that failed as a whole (sum over the period). */
  metricWorkerErrors(props?: MetricOptions): Metric {
    return this.worker.metricErrors({ statistic: 'Sum', ...props });
  }

  /** Outputs keyed `<id><suffix>`, which `locationFromStackOutputs()` reads back. */
  private addOutputs(id: string, settings: ExecutorSettings): void {
    const prefix = id.replace(/[^A-Za-z0-9]/g, '');
    const outputs: [string, string, string][] = [
      [StackOutputSuffix.TABLE_NAME, this.table.tableName, 'The task table'],
      [StackOutputSuffix.QUEUE_URL, this.workQueue.queueUrl, 'The FIFO work queue'],
      [StackOutputSuffix.QUEUE_ARN, this.workQueue.queueArn, 'The work queue, target of schedules'],
      [StackOutputSuffix.DEAD_LETTER_QUEUE_URL, this.deadLetterQueue.queueUrl, 'The FIFO DLQ'],
      // The literal name, not a reference: moto's CloudFormation skips Scheduler resources.
      [StackOutputSuffix.SCHEDULE_GROUP_NAME, settings.scheduler.groupName, 'The schedule group'],
      [
        StackOutputSuffix.SCHEDULER_ROLE_ARN,
        this.scheduling.schedulerRole.roleArn,
        'Execution role of task schedules',
      ],
      [
        StackOutputSuffix.SCHEDULE_DLQ_ARN,
        this.scheduleDeadLetterQueue.queueArn,
        'Where schedules put firings they could not deliver',
      ],
      [StackOutputSuffix.WORKER_FUNCTION_NAME, this.worker.functionName, 'The worker function'],
    ];
    for (const [suffix, value, description] of outputs) {
      new CfnOutput(this, suffix, { key: `${prefix}${suffix}`, value, description });
    }
  }
}
