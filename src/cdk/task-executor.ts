import { Duration, Stack } from 'aws-cdk-lib';
import type { Metric, MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { Grant, IGrantable, IPrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MetricName } from '../observability/metrics.js';
import type { ExecutorSettings } from '../settings/executor.js';
import {
  consumeGrant,
  enqueueGrant,
  type GrantTargets,
  grantTargetsOf,
  operateGrant,
  readGrant,
  scheduleArns,
  signalGrant,
  wakeSchedulesArn,
} from './executor-grants.js';
import { addExecutorOutputs, outputSourcesOf } from './executor-outputs.js';
import {
  allowSweeper,
  allowWorkerWakes,
  createExecutorFunctions,
  laneLocations,
  resolveExecutorSettings,
} from './executor-setup.js';
import {
  integrityGrant,
  integrityKeyOf,
  PRODUCER_INTEGRITY_ACTIONS,
  SIGNALLER_INTEGRITY_ACTIONS,
  WORKER_INTEGRITY_ACTIONS,
} from './integrity.js';
import { eventGrant, lifecycleEventBus } from './lifecycle-events.js';
import { manageSchedulesGrant } from './manage-schedules-grant.js';
import { ExecutorMonitoring, taskMetric } from './monitoring.js';
import {
  acknowledgeFinding,
  acknowledgeNagFindings,
  type NagAcknowledgement,
} from './nag-acknowledgements.js';
import { pauseLanesGrant } from './pause-lanes-grant.js';
import * as payloads from './payload-bucket.js';
import {
  type ConnectProducerOptions,
  type ProducerTarget,
  producerEnvironment,
} from './producer-wiring.js';
import { createExecutorQueues, type LaneQueuePair } from './queue-props.js';
import { ExecutorScheduling } from './scheduling.js';
import { SenderRestriction } from './sender-restriction.js';
import type { TaskExecutorProps } from './task-executor-props.js';
import { createTaskTable } from './task-table.js';

export type { TaskExecutorProps } from './task-executor-props.js';

/** A Tasklane executor. See {@link TaskExecutorProps}. */
export class TaskExecutor extends Construct {
  /** The resolved names and queue attributes, shared with the emulator's provisioning. */
  readonly settings: ExecutorSettings;
  readonly workQueue: Queue;
  readonly deadLetterQueue: Queue;
  /**
   * Every lane's work queue and DLQ, keyed by lane (docs/lanes.md), the `default` lane
   * ({@link workQueue} and {@link deadLetterQueue}) first. Just the default lane without
   * the `lanes` prop.
   */
  readonly lanes: ReadonlyMap<string, LaneQueuePair>;
  /** Standard queue for failed schedule deliveries and failed sweeper runs. */
  readonly scheduleDeadLetterQueue: Queue;
  readonly table: Table;
  /**
   * The worker function. Its `grantPrincipal` drops grants (its role takes no policy
   * updates, so that nothing is granted to it implicitly): grant to {@link workerPrincipal}.
   */
  readonly worker: IFunction;
  /** The worker's role as a grantee (into its managed policy): `bucket.grantRead(executor.workerPrincipal)`. */
  readonly workerPrincipal: IPrincipal;
  readonly sweeper: IFunction;
  /**
   * The Node.js runtime of the executor's functions: `lambdaRuntime`, else the newest the
   * app's aws-cdk-lib knows, never below 24. Give your producer functions the same, and
   * cdk-nag's AwsSolutions-L1 passes for them too.
   */
  readonly runtime: Runtime;
  readonly scheduling: ExecutorScheduling;
  readonly monitoring: ExecutorMonitoring;
  /** Every recurring schedule: `arn:…:scheduler:…:schedule/<group>/*`. */
  readonly schedulesArn: string;
  /**
   * The delayed tasks' one-time schedules, in a group of their own:
   * `arn:…:schedule/<group>.at/task.*` and `…/task_*`. What producers, operators and the
   * sweeper may create or delete.
   */
  readonly delayedSchedulesArns: readonly string[];
  /** The functions' `POWERTOOLS_SERVICE_NAME`, the `service` dimension of their metrics. */
  readonly serviceName: string;
  /** The customer-managed key of the queues, the table, the logs and the functions' environment. */
  readonly encryptionKey: IKey | undefined;
  /** The HMAC key of the integrity tag; undefined unless `integrity` or `integrityKey`. */
  readonly integrityKey: IKey | undefined;
  /** The claim-check bucket of large payloads and results; undefined without `payloadBucket`. */
  readonly payloadBucket: IBucket | undefined;
  /** The bus of lifecycle events; undefined unless `events` or `eventBus`. */
  readonly eventBus: IEventBus | undefined;
  /**
   * Every `TASKLANE_*` environment variable a producer's `new TaskClient()` reads, for the
   * features this executor deploys: the table and queue, the schedule groups and roles of
   * delayed tasks, retention and shards, and, when deployed, the encryption key, the
   * integrity key, the claim-check bucket and the lanes' queues. For a producer that is not
   * a Lambda function (a container's `environment`); {@link connectProducer} sets them on a
   * function and grants it in one call.
   */
  readonly producerEnvironment: Readonly<Record<string, string>>;
  /** The cdk-nag findings acknowledged on the executor's resources and its grants' policies. */
  readonly nagAcknowledgements: readonly NagAcknowledgement[];
  private readonly acknowledged: NagAcknowledgement[] = [];
  /** With `restrictSenders`, each work queue's deny statement and the principals it spares. */
  private readonly senders: SenderRestriction | undefined;

  constructor(scope: Construct, id: string, props: TaskExecutorProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const {
      settings,
      name,
      workerEntry,
      workerTimeout,
      maxConcurrency,
      retentionMs,
      statusShards,
    } = resolveExecutorSettings(stack, props);
    this.settings = settings;
    this.serviceName = `tasklane-${name}`;
    const key = props.encryptionKey;
    this.encryptionKey = key;
    this.integrityKey = integrityKeyOf(this, props, name);
    this.eventBus = lifecycleEventBus(this, props);

    const queues = createExecutorQueues(this, settings, key);
    this.workQueue = queues.workQueue;
    this.deadLetterQueue = queues.deadLetterQueue;
    this.scheduleDeadLetterQueue = queues.scheduleDeadLetterQueue;
    this.lanes = queues.lanes;
    this.table = createTaskTable(this, 'Table', settings.table, props);
    const arns = scheduleArns(
      stack,
      settings.scheduler.groupName,
      settings.scheduler.delayedGroupName,
    );
    this.schedulesArn = arns.schedulesArn;
    this.delayedSchedulesArns = arns.delayedSchedulesArns;

    const { worker, sweeper } = createExecutorFunctions(this, props, {
      name,
      serviceName: this.serviceName,
      table: this.table,
      workQueue: this.workQueue,
      scheduleDeadLetterQueue: this.scheduleDeadLetterQueue,
      lanes: this.lanes,
      laneSettings: settings.lanes,
      integrityKey: this.integrityKey,
      eventBus: this.eventBus,
      workerEntry,
      workerTimeout,
      maxConcurrency,
      retentionMs,
      statusShards,
    });
    this.worker = worker.function;
    this.runtime = worker.function.runtime;
    this.workerPrincipal = worker.grantee;
    this.sweeper = sweeper.function;

    this.scheduling = new ExecutorScheduling(this, 'Scheduling', {
      scheduleGroupName: settings.scheduler.groupName,
      delayedScheduleGroupName: settings.scheduler.delayedGroupName,
      workQueues: [...this.lanes.values()].map((l) => l.workQueue),
      deadLetterQueue: this.scheduleDeadLetterQueue,
      sweeper: this.sweeper,
      worker: worker.function,
      encryptionKey: key,
    });
    const sweeperTargets = {
      table: this.table,
      statusIndexName: settings.table.statusIndex.name,
      workQueue: this.workQueue,
      lanes: this.lanes,
      scheduleDeadLetterQueue: this.scheduleDeadLetterQueue,
      delayedSchedulesArns: this.delayedSchedulesArns,
      scheduleGroupName: settings.scheduler.groupName,
      delayedScheduleGroupName: settings.scheduler.delayedGroupName,
      schedulerRoleArn: this.scheduling.schedulerRole.roleArn,
      delayedSchedulerRoleArn: this.scheduling.delayedSchedulerRole.roleArn,
      key,
      integrityKey: this.integrityKey,
    };
    allowSweeper(sweeper, sweeperTargets);
    const wakes = wakeSchedulesArn(Stack.of(this), settings.scheduler.delayedGroupName);
    allowWorkerWakes(worker, sweeperTargets, wakes);
    this.senders = props.restrictSenders
      ? new SenderRestriction(
          [...this.lanes.values()].map((l) => l.workQueue),
          [
            this.scheduling.schedulerRole.roleArn,
            this.scheduling.delayedSchedulerRole.roleArn,
            sweeper.role.roleArn,
            // It sends the dependents a finished task releases (docs/adr/0030-dependencies.md).
            worker.role.roleArn,
          ],
        )
      : undefined;
    const context = { key, retentionMs, worker, targets: this.grantTargets() };
    this.payloadBucket = payloads.setUpPayloadBucket(this, props.payloadBucket, context);
    this.monitoring = new ExecutorMonitoring(this, 'Monitoring', {
      executor: this,
      namePrefix: `tasklane-${name}`,
      oldestMessageAgeThreshold: props.oldestMessageAgeThreshold ?? Duration.minutes(15),
      alarmActions: props.alarmActions ?? [],
      ...(props.costPrices === undefined ? {} : { prices: props.costPrices }),
      claimCheck: this.payloadBucket !== undefined,
    });
    const laneOutputs =
      Object.keys(settings.lanes).length > 0 ? laneLocations(this.lanes) : undefined;
    this.producerEnvironment = producerEnvironment({
      tableName: this.table.tableName,
      queueUrl: this.workQueue.queueUrl,
      queueArn: this.workQueue.queueArn,
      scheduleGroupName: settings.scheduler.groupName,
      delayedScheduleGroupName: settings.scheduler.delayedGroupName,
      schedulerRoleArn: this.scheduling.schedulerRole.roleArn,
      delayedSchedulerRoleArn: this.scheduling.delayedSchedulerRole.roleArn,
      scheduleDeadLetterArn: this.scheduleDeadLetterQueue.queueArn,
      retentionMs,
      statusShards,
      encryptionKeyArn: key?.keyArn,
      integrityKeyArn: this.integrityKey?.keyArn,
      payloadBucketName: this.payloadBucket?.bucketName,
      lanes: laneOutputs,
    });
    addExecutorOutputs(this, id, outputSourcesOf(this, statusShards, laneOutputs));
    this.nagAcknowledgements = this.acknowledged;
    this.acknowledged.push(
      ...acknowledgeNagFindings({
        executor: this,
        worker,
        sweeper,
        props,
        wakeSchedulesArn: wakes,
      }),
    );
  }

  /**
   * Lets a producer enqueue tasks: TaskClient.enqueue and enqueueBatch, immediate and
   * delayed, and cancel them.
   *
   * Actions: `dynamodb:PutItem` and `dynamodb:UpdateItem` on the table, the latter only on
   * the attributes a producer's own updates name (`dynamodb:Attributes`, see
   * `PRODUCER_UPDATE_ATTRIBUTES`), no `DeleteItem` (a rolled-back delayed task is moved to
   * ROLLED_BACK);
   * `sqs:SendMessage`, `sqs:GetQueueAttributes` and `sqs:GetQueueUrl` on the work queue (the
   * queue's own grantSendMessages); `scheduler:CreateSchedule` and `scheduler:DeleteSchedule`
   * on delayed tasks' schedules only, `schedule/<group>.at/task.*` and
   * `schedule/<group>.at/task_*`; `iam:PassRole` of the scheduler role only, with the condition
   * `iam:PassedToService` = `scheduler.amazonaws.com`; with `encryptionKey`, `kms:Decrypt`,
   * `kms:Encrypt` and `kms:GenerateDataKey` on the key; with integrity, `kms:GenerateMac` on
   * the integrity key; with `payloadBucket`, `s3:PutObject` on `payloads/*` only. With
   * `restrictSenders`, the grantee (a role or user) joins the principals the work queue's
   * policy lets send.
   */
  grantEnqueue(grantee: IGrantable): Grant {
    this.senders?.allow(grantee, 'grantEnqueue');
    return enqueueGrant(this.grantTargets(), grantee)
      .combine(integrityGrant(this.integrityKey, grantee, PRODUCER_INTEGRITY_ACTIONS))
      .combine(this.payloadGrant(grantee, payloads.PayloadAccess.ENQUEUE));
  }

  /**
   * Wires a producer in one call: sets {@link producerEnvironment} on it (every variable its
   * `new TaskClient()` needs for the features this executor deploys, delayed tasks included)
   * and grants it {@link grantEnqueue}, and {@link grantRead} too with `{ read: true }`.
   *
   * @returns the grants given, combined.
   */
  connectProducer(producer: ProducerTarget, options: ConnectProducerOptions = {}): Grant {
    for (const [variable, value] of Object.entries(this.producerEnvironment)) {
      producer.addEnvironment(variable, value);
    }
    const enqueue = this.grantEnqueue(producer);
    return options.read === true ? enqueue.combine(this.grantRead(producer)) : enqueue;
  }

  /**
   * Lets an observer read tasks: TaskClient.get, wait, list, counts and watch.
   *
   * Actions: `dynamodb:GetItem`, `dynamodb:BatchGetItem`, `dynamodb:Scan` (counting and
   * listing finished tasks) and `dynamodb:DescribeTable` (finding the stream) on the table;
   * `dynamodb:Query` on the status index only; `dynamodb:DescribeStream`,
   * `dynamodb:GetShardIterator` and `dynamodb:GetRecords` on the table's stream (watch and
   * `tasklane tail`); with `encryptionKey`, `kms:Decrypt` on the key; with `payloadBucket`,
   * `s3:GetObject` on `results/*` only (get returns large results).
   */
  grantRead(grantee: IGrantable): Grant {
    const results = this.payloadGrant(grantee, payloads.PayloadAccess.READ);
    return readGrant(this.grantTargets(), grantee).combine(results);
  }

  /**
   * Lets a worker outside Lambda run tasks: `createWorker(tasks).poll()` on ECS, EC2 or a
   * laptop, what the executor's own worker function may do.
   *
   * Actions: `dynamodb:GetItem`, `dynamodb:PutItem`, `dynamodb:UpdateItem` and
   * `dynamodb:ConditionCheckItem` (a parked key's item) on the table;
   * `sqs:ReceiveMessage`, `sqs:DeleteMessage`, `sqs:ChangeMessageVisibility`,
   * `sqs:GetQueueAttributes` and `sqs:GetQueueUrl` on the work queue; with `encryptionKey`,
   * `kms:Decrypt`, `kms:Encrypt` and `kms:GenerateDataKey` on the key; with integrity,
   * `kms:VerifyMac` and `kms:GenerateMac` (recurring firings) on the integrity key; with
   * `payloadBucket`, `s3:GetObject` on `payloads/*` and `s3:PutObject` on `results/*`; with
   * lifecycle events, `events:PutEvents` on their bus (the poll loop reads
   * `TASKLANE_EVENT_BUS`, or pass `events` to `createWorker`).
   */
  grantConsume(grantee: IGrantable): Grant {
    return consumeGrant(this.grantTargets(), grantee)
      .combine(integrityGrant(this.integrityKey, grantee, WORKER_INTEGRITY_ACTIONS))
      .combine(this.payloadGrant(grantee, payloads.PayloadAccess.CONSUME))
      .combine(eventGrant(this.eventBus, grantee));
  }

  /**
   * Lets an operator repair and clean up: TaskClient.redrive, cancel, purge, parkedKeys
   * and releaseKey.
   *
   * Actions: `dynamodb:GetItem`, `dynamodb:UpdateItem` and `dynamodb:DeleteItem` (purge,
   * a parked key's item) on the table; `dynamodb:Query` on the status index (selecting DEAD
   * tasks, listing parked keys); `sqs:SendMessage`, `sqs:ChangeMessageVisibility` (letting
   * a parked key's held message go) and `sqs:DeleteMessage` (a purged parked task's held
   * message) on the work queue; `sqs:ReceiveMessage`, `sqs:DeleteMessage` and
   * `sqs:ChangeMessageVisibility` on the DLQ (redrive clears the dead letters of the tasks it
   * brings back); `scheduler:DeleteSchedule` on `schedule/<group>.at/task.*` and `…/task_*`
   * (cancelling a delayed task); with `encryptionKey`, `kms:Decrypt`, `kms:Encrypt` and `kms:GenerateDataKey` on
   * the key. With `restrictSenders`, the grantee (a role or user) joins the principals the
   * work queue's policy lets send, as redrive sends.
   */
  grantOperate(grantee: IGrantable): Grant {
    this.senders?.allow(grantee, 'grantOperate');
    return operateGrant(this.grantTargets(), grantee);
  }

  /**
   * Lets a webhook or an approver send signals: `TaskClient.signal`, and nothing else
   * (docs/durable-tasks.md, docs/adr/0048-durable-sleep-signals-pause.md).
   *
   * Actions: `dynamodb:GetItem` on the table (the task, and its signal head);
   * `dynamodb:ConditionCheckItem` on it (a signal's transaction checks the task's state, and
   * writes nothing to it); `dynamodb:UpdateItem`, `dynamodb:PutItem` and `dynamodb:DeleteItem`
   * only on signal items (`dynamodb:LeadingKeys` `signal *`: the signal head, which counts the
   * signals, the signals and their ids' reservations), never on a task's item
   * (docs/adr/0066-signal-head-off-the-task-item.md);
   * `sqs:SendMessage` and `sqs:ChangeMessageVisibility` on the work queues (waking a waiting
   * task); with integrity, `kms:VerifyMac` on the integrity key (a signal token's HMAC,
   * `TaskClient.signalWithToken`). With `restrictSenders`, the grantee joins the principals
   * the work queue's policy lets send. With `payloadBucket`, `s3:PutObject` on `signals/*`
   * (signal data above 4 KB).
   */
  grantSignal(grantee: IGrantable): Grant {
    this.senders?.allow(grantee, 'grantSignal');
    return signalGrant(this.grantTargets(), grantee)
      .combine(integrityGrant(this.integrityKey, grantee, SIGNALLER_INTEGRITY_ACTIONS))
      .combine(this.payloadGrant(grantee, payloads.PayloadAccess.SIGNAL));
  }

  /**
   * Lets an operator manage recurring schedules: `TaskClient.schedules` (set,
   * delete, pause, resume, get and list).
   *
   * Actions: `scheduler:CreateSchedule`, `scheduler:UpdateSchedule`,
   * `scheduler:DeleteSchedule` and `scheduler:GetSchedule` on `schedule/<group>/*`;
   * `iam:PassRole` of the scheduler role only, with the condition `iam:PassedToService` =
   * `scheduler.amazonaws.com`; with `encryptionKey`, `kms:Encrypt` and `kms:Decrypt` on the
   * key (Scheduler encrypts and decrypts the schedules' input with it on the caller's
   * behalf); and `scheduler:ListSchedules` on `*`, since that action
   * supports no resource type. For a role, ListSchedules goes into a managed policy of its
   * own attached to the role (`<executor>ListSchedules`), where its cdk-nag acknowledgement
   * cannot cover any other statement; the returned Grant holds the other statements.
   */
  grantManageSchedules(grantee: IGrantable): Grant {
    return manageSchedulesGrant(this.grantTargets(), grantee);
  }

  /**
   * Lets an operator pause and resume lanes (`TaskClient.pauseLane`, `resumeLane`, `laneStates`,
   * `tasklane pause --lane`): exactly the actions listed in pause-lanes-grant.ts.
   */
  grantPauseLanes(grantee: IGrantable): Grant {
    return pauseLanesGrant(this.grantTargets(), this, grantee);
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

  /**
   * One of the metrics the worker (and, for DEAD, the sweeper) publishes as EMF: namespace
   * `Tasklane`, dimension `service` = {@link serviceName}. Counts (`TasksStarted`,
   * `TasksSucceeded`, `TasksFailed`, `TasksRetried`, `TasksDead`) default to the sum over
   * the period; `TaskDuration` and `QueueLatency` (milliseconds) to p99.
   */
  metricTasks(metricName: MetricName, props?: MetricOptions): Metric {
    return taskMetric(this.serviceName, metricName, props);
  }

  /** Tasks declared DEAD, by the worker or by the sweeper (sum over the period). */
  metricDeadTasks(props?: MetricOptions): Metric {
    return this.metricTasks(MetricName.DEAD, props);
  }

  private payloadGrant(grantee: IGrantable, access: payloads.PayloadAccessList): Grant {
    return payloads.payloadGrant(this.grantTargets(), this.payloadBucket, grantee, access);
  }

  private grantTargets(): GrantTargets {
    return grantTargetsOf(this, (scope, id, reason, covering) => {
      const done = acknowledgeFinding(scope, id, reason, covering);
      const seen = this.acknowledged.some((a) => a.id === done.id && a.path === done.path);
      if (!seen) this.acknowledged.push(done);
    });
  }
}
