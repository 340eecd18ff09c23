/**
 * Steps of building a TaskExecutor: resolving its props into the executor's settings
 * (validated, with the defaults the construct documents), creating the worker and the
 * sweeper, and the sweeper's permissions and scheduling environment.
 */
import path from 'node:path';
import { Duration, type Stack, Token } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { Defaults } from '../core/constants.js';
import { type ExecutorSettings, executorSettings } from '../settings/executor.js';
import type { LaneProps } from '../settings/lanes.js';
import {
  DEFAULT_LANE,
  LaneEnvVars,
  type LaneLocations,
  laneEnvironment,
} from '../settings/lanes.js';
import { EnvVars } from '../settings/location.js';
import type { Retention } from '../settings/retention.js';
import { allowLogsToUseKey } from './encryption.js';
import { ExecutorFunction, latestNodeRuntime } from './executor-functions.js';
import { KEY_USE_ACTIONS, WORKER_QUEUE_ACTIONS, WORKER_TABLE_ACTIONS } from './grant-actions.js';
import {
  PREVIOUS_KEY_INTEGRITY_ACTIONS,
  previousIntegrityKeyArns,
  SWEEPER_INTEGRITY_ACTIONS,
  WORKER_INTEGRITY_ACTIONS,
} from './integrity.js';
import { eventEnvironment, WORKER_EVENT_ACTIONS } from './lifecycle-events.js';
import type { LaneQueuePair } from './queue-props.js';
import { sweeperBundleDirectory } from './sweeper-bundle.js';
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
  readonly statusShards: number;
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
    ...(props.lanes !== undefined && { lanes: props.lanes }),
  };
  validateTaskExecutorProps({
    ...settingsProps,
    workerEntry,
    workerMemorySize: props.workerMemorySize,
    lambdaRuntimeName: props.lambdaRuntime?.name,
    batchSize: props.batchSize,
    maxConcurrency,
    laneConcurrency: laneConcurrencySum(props, maxConcurrency),
    reservedConcurrency: props.reservedConcurrency,
    oldestMessageAgeThresholdSeconds: props.oldestMessageAgeThreshold?.toSeconds({
      integral: false,
    }),
    maxRetryDelaySeconds: props.maxRetryDelay?.toSeconds({ integral: false }),
    retentionMs,
    statusShards: props.statusShards,
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
    statusShards: props.statusShards ?? Defaults.STATUS_SHARDS,
  };
}

/** The lanes' maxConcurrency added up; undefined without lanes. */
function laneConcurrencySum(props: TaskExecutorProps, maxConcurrency: number): number | undefined {
  if (props.lanes === undefined) return undefined;
  const lanes: Record<string, LaneProps | undefined> = { [DEFAULT_LANE]: {}, ...props.lanes };
  let sum = 0;
  for (const lane of Object.values(lanes)) {
    sum += typeof lane?.maxConcurrency === 'number' ? lane.maxConcurrency : maxConcurrency;
  }
  return sum;
}

/** What {@link createExecutorFunctions} builds the worker and the sweeper on. */
export interface FunctionTargets {
  readonly name: string;
  readonly serviceName: string;
  readonly table: Table;
  readonly workQueue: Queue;
  readonly scheduleDeadLetterQueue: Queue;
  /** Every lane's queues, the default lane's (the work queue and its DLQ) first. */
  readonly lanes: ReadonlyMap<string, LaneQueuePair>;
  /** The lanes' settings; empty for an executor without lanes. */
  readonly laneSettings: ExecutorSettings['lanes'];
  readonly integrityKey: IKey | undefined;
  /** The bus of lifecycle events; undefined when they are off. */
  readonly eventBus: IEventBus | undefined;
  readonly workerEntry: string | undefined;
  readonly workerTimeout: Duration;
  readonly maxConcurrency: number;
  readonly retentionMs: Retention;
  readonly statusShards: number;
}

/**
 * The worker, behind the work queue's event source mapping with exactly the permissions it
 * calls, and the sweeper (its permissions come with {@link allowSweeper}, once the
 * scheduler's role exists).
 */
export function createExecutorFunctions(
  scope: Construct,
  props: TaskExecutorProps,
  targets: FunctionTargets,
): { readonly worker: ExecutorFunction; readonly sweeper: ExecutorFunction } {
  const { name, table, workQueue, integrityKey, eventBus } = targets;
  const key = props.encryptionKey;
  const previousKeys = previousIntegrityKeyArns(props);
  const environment = {
    [EnvVars.TABLE_NAME]: table.tableName,
    [EnvVars.QUEUE_URL]: workQueue.queueUrl,
    // Known up front, so neither function looks it up (GetQueueUrl, GetQueueAttributes).
    [EnvVars.QUEUE_ARN]: workQueue.queueArn,
    // How long finished tasks keep their id reserved; both functions write terminal states.
    [EnvVars.RETENTION_MS]: String(targets.retentionMs),
    // Both functions key the status index; producers get the same count from the output.
    [EnvVars.STATUS_SHARDS]: String(targets.statusShards),
    POWERTOOLS_SERVICE_NAME: targets.serviceName,
    ...(integrityKey && { [EnvVars.INTEGRITY_KEY_ID]: integrityKey.keyArn }),
    ...(integrityKey &&
      previousKeys.length > 0 && { [EnvVars.INTEGRITY_PREVIOUS_KEY_IDS]: previousKeys.join(',') }),
    // Only with lanes, so that an executor without them keeps its functions as they were.
    // Queue URLs and ARNs only: neither function reads a DLQ, and Lambda's environment is
    // limited to 4 KB.
    ...(Object.keys(targets.laneSettings).length > 0 &&
      laneEnvironment(
        Object.fromEntries(
          Object.entries(laneLocations(targets.lanes)).map(([lane, l]) => [
            lane,
            { queueUrl: l.queueUrl, queueArn: l.queueArn },
          ]),
        ),
      )),
  };
  if (key && props.logEncryptionKey === undefined) allowLogsToUseKey(scope, key, name);
  const common = {
    runtime: props.lambdaRuntime ?? latestNodeRuntime(),
    logRetention: props.logRetention ?? RetentionDays.ONE_YEAR,
    logEncryptionKey: props.logEncryptionKey ?? key,
    environmentKey: key,
    vpc: props.vpc,
    vpcSubnets: props.vpcSubnets,
  };
  const worker = new ExecutorFunction(scope, 'Worker', {
    ...common,
    code: { entry: targets.workerEntry ?? '' },
    description: `the Tasklane worker of ${name}`,
    logGroupName: `/tasklane/${name}/worker`,
    timeout: targets.workerTimeout,
    // A claim-checked payload of the default limit (100 MiB) peaks at about 450 MiB read and
    // parsed, before the handler's own work: 512 MB would not hold it (docs/large-payloads.md).
    memorySize:
      props.workerMemorySize ??
      (props.payloadBucket === undefined || props.payloadBucket === false ? 512 : 1024),
    environment: {
      ...props.workerEnvironment,
      ...environment,
      ...eventEnvironment(eventBus, name),
    },
    reservedConcurrency: props.reservedConcurrency,
  });
  // Exactly what the worker calls (see WORKER_TABLE_ACTIONS and WORKER_QUEUE_ACTIONS).
  worker.allow(WORKER_TABLE_ACTIONS, [table.tableArn]);
  worker.allow(WORKER_QUEUE_ACTIONS, queueArns(targets.lanes));
  if (key) worker.allow(KEY_USE_ACTIONS, [key.keyArn]);
  if (integrityKey) worker.allow(WORKER_INTEGRITY_ACTIONS, [integrityKey.keyArn]);
  if (eventBus) worker.allow(WORKER_EVENT_ACTIONS, [eventBus.eventBusArn]);
  // One mapping per lane, each with its own concurrency: a busy lane cannot take another
  // lane's pollers (docs/adr/0028-lanes.md).
  for (const [lane, queues] of targets.lanes) {
    const laneSettings = targets.laneSettings[lane];
    worker.function.addEventSource(
      new SqsEventSource(queues.workQueue, {
        batchSize: laneSettings?.batchSize ?? props.batchSize ?? 10,
        maxConcurrency: laneSettings?.maxConcurrency ?? targets.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
  }
  const sweeper = new ExecutorFunction(scope, 'Sweeper', {
    ...common,
    code: { bundleDirectory: sweeperBundleDirectory() },
    description: `the Tasklane sweeper of ${name}`,
    logGroupName: `/tasklane/${name}/sweeper`,
    timeout: Duration.seconds(60),
    memorySize: 256,
    environment,
    // One sweep at a time: overlapping sweeps would only race for the same records.
    reservedConcurrency: 1,
    deadLetterQueue: targets.scheduleDeadLetterQueue,
  });
  // Records tagged under a previous key still verify with it (docs/adr/0035-integrity-tag-v2.md).
  if (integrityKey && previousKeys.length > 0) {
    worker.allow(PREVIOUS_KEY_INTEGRITY_ACTIONS, previousKeys);
    sweeper.allow(PREVIOUS_KEY_INTEGRITY_ACTIONS, previousKeys);
  }
  return { worker, sweeper };
}

/** The work queues' ARNs of every lane, the default lane's first. */
export function queueArns(lanes: ReadonlyMap<string, LaneQueuePair>): string[] {
  return [...lanes.values()].map((l) => l.workQueue.queueArn);
}

/** The lanes' queues as {@link LaneLocations}, for the functions' environment and the outputs. */
export function laneLocations(lanes: ReadonlyMap<string, LaneQueuePair>): LaneLocations {
  return Object.fromEntries(
    [...lanes].map(([lane, q]) => [
      lane,
      {
        queueUrl: q.workQueue.queueUrl,
        queueArn: q.workQueue.queueArn,
        deadLetterQueueUrl: q.deadLetterQueue.queueUrl,
      },
    ]),
  );
}

/** What {@link allowSweeper} grants on. */
export interface SweeperTargets {
  readonly table: Table;
  readonly statusIndexName: string;
  readonly workQueue: Queue;
  /** Every lane's queues: the sweeper re-sends to each. */
  readonly lanes: ReadonlyMap<string, LaneQueuePair>;
  readonly scheduleDeadLetterQueue: Queue;
  readonly delayedSchedulesArns: readonly string[];
  readonly scheduleGroupName: string;
  readonly delayedScheduleGroupName: string;
  /** The recurring schedules' role: named in the environment only, never passed. */
  readonly schedulerRoleArn: string;
  /** The delayed tasks' role, the one role the sweeper may pass. */
  readonly delayedSchedulerRoleArn: string;
  readonly key: IKey | undefined;
  readonly integrityKey: IKey | undefined;
}

/** Gives the sweeper exactly what a sweep calls, and the scheduling settings. */
export function allowSweeper(sweeper: ExecutorFunction, targets: SweeperTargets): void {
  const { table, key, integrityKey } = targets;
  const statusIndexArn = `${table.tableArn}/index/${targets.statusIndexName}`;
  // Exactly what a sweep calls: it pages the status index and reads the listed items
  // (BatchGetItem: the index projects a few attributes), moves records on with
  // conditional updates, (re)sends messages (SendMessageBatch), and repairs overdue
  // delayed tasks by recreating their one-time schedule (or sending them when due).
  sweeper.allow(['dynamodb:Query'], [statusIndexArn]);
  sweeper.allow(['dynamodb:UpdateItem', 'dynamodb:BatchGetItem'], [table.tableArn]);
  sweeper.allow(['sqs:SendMessage'], queueArns(targets.lanes));
  sweeper.allow(['scheduler:CreateSchedule'], [...targets.delayedSchedulesArns]);
  sweeper.allow(['iam:PassRole'], [targets.delayedSchedulerRoleArn], {
    StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
  });
  if (key) sweeper.allow(KEY_USE_ACTIONS, [key.keyArn]);
  if (integrityKey) sweeper.allow(SWEEPER_INTEGRITY_ACTIONS, [integrityKey.keyArn]);
  const schedulingEnvironment = {
    [EnvVars.SCHEDULE_GROUP]: targets.scheduleGroupName,
    [EnvVars.DELAYED_SCHEDULE_GROUP]: targets.delayedScheduleGroupName,
    // The sweeper recreates delayed tasks' schedules encrypted with the executor's key.
    ...(key ? { [EnvVars.KMS_KEY_ARN]: key.keyArn } : {}),
    [EnvVars.SCHEDULER_ROLE_ARN]: targets.schedulerRoleArn,
    // What the sweeper's recreated one-time schedules deliver with (ADR 0036).
    [EnvVars.DELAYED_SCHEDULER_ROLE_ARN]: targets.delayedSchedulerRoleArn,
    [EnvVars.SCHEDULE_DLQ_ARN]: targets.scheduleDeadLetterQueue.queueArn,
  };
  for (const [variable, value] of Object.entries(schedulingEnvironment)) {
    sweeper.function.addEnvironment(variable, value);
  }
  // A suspended task whose wake was lost is woken by showing its held message
  // (docs/adr/0048-durable-sleep-signals-pause.md).
  sweeper.allow(['sqs:ChangeMessageVisibility'], queueArns(targets.lanes));
  allowDeadLetterPass(sweeper, targets.lanes);
}

/**
 * The sweeper's dead-letter pass (docs/adr/0052-running-leaves-the-status-index.md): it
 * receives each lane's DLQ messages (never deleting one) to find RUNNING tasks whose message
 * reached it, so it needs their URLs and ReceiveMessage on them.
 */
function allowDeadLetterPass(
  sweeper: ExecutorFunction,
  lanes: ReadonlyMap<string, LaneQueuePair>,
): void {
  const pairs = [...lanes.entries()];
  const first = pairs[0];
  if (first === undefined) return;
  sweeper.allow(
    ['sqs:ReceiveMessage'],
    pairs.map(([, q]) => q.deadLetterQueue.queueArn),
  );
  sweeper.function.addEnvironment(EnvVars.DLQ_URL, first[1].deadLetterQueue.queueUrl);
  if (pairs.length > 1) {
    const urls = Object.fromEntries(pairs.map(([lane, q]) => [lane, q.deadLetterQueue.queueUrl]));
    sweeper.function.addEnvironment(LaneEnvVars.DLQ_URLS, JSON.stringify(urls));
  }
}

/**
 * Lets the worker wake its long sleepers (docs/adr/0048-durable-sleep-signals-pause.md): a
 * suspended task without an ordering key whose timer ends past the schedule threshold gets a
 * one-time schedule in the delayed group (names `task_w*` only), delivered as the delayed tasks'
 * role, the one role the worker may pass (ADR 0036), with the scheduling settings that name
 * them. It deletes no schedule: a wake fires once and deletes itself.
 */
export function allowWorkerWakes(
  worker: ExecutorFunction,
  targets: SweeperTargets,
  wakeSchedulesArn: string,
): void {
  worker.allow(['scheduler:CreateSchedule'], [wakeSchedulesArn]);
  worker.allow(['iam:PassRole'], [targets.delayedSchedulerRoleArn], {
    StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
  });
  const environment = {
    [EnvVars.SCHEDULE_GROUP]: targets.scheduleGroupName,
    [EnvVars.DELAYED_SCHEDULE_GROUP]: targets.delayedScheduleGroupName,
    ...(targets.key ? { [EnvVars.KMS_KEY_ARN]: targets.key.keyArn } : {}),
    // Named so the settings resolve; the worker never passes it.
    [EnvVars.SCHEDULER_ROLE_ARN]: targets.schedulerRoleArn,
    [EnvVars.DELAYED_SCHEDULER_ROLE_ARN]: targets.delayedSchedulerRoleArn,
    [EnvVars.SCHEDULE_DLQ_ARN]: targets.scheduleDeadLetterQueue.queueArn,
  };
  for (const [variable, value] of Object.entries(environment)) {
    worker.function.addEnvironment(variable, value);
  }
}
