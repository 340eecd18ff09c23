/**
 * Alarms and a dashboard for one executor. Alarm actions are optional: without them the
 * alarms still change state and show on the dashboard.
 */
import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IAlarmAction,
  type IMetric,
  Metric,
  type MetricOptions,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { PriceTable } from '../observability/cost.js';
import { METRICS_NAMESPACE, MetricName } from '../observability/metrics.js';
import { DEFAULT_LANE } from '../settings/lanes.js';
import { costWidget } from './cost-widget.js';
import { laneIdPart } from './queue-props.js';

/** What {@link ExecutorMonitoring} watches; the TaskExecutor construct provides it. */
export interface MonitoredExecutor {
  readonly workQueue: IQueue;
  /** Every lane's queues; the lanes other than `default` get alarms and a graph of their own. */
  readonly lanes: ReadonlyMap<
    string,
    { readonly workQueue: IQueue; readonly deadLetterQueue: IQueue }
  >;
  readonly scheduleDeadLetterQueue: IQueue;
  readonly worker: IFunction;
  readonly sweeper: IFunction;
  metricDeadLetterDepth(props?: MetricOptions): IMetric;
  metricOldestMessageAge(props?: MetricOptions): IMetric;
  metricWorkerErrors(props?: MetricOptions): IMetric;
  metricDeadTasks(props?: MetricOptions): IMetric;
  metricTasks(metricName: MetricName, props?: MetricOptions): IMetric;
}

/** Inputs of {@link ExecutorMonitoring}. */
export interface ExecutorMonitoringProps {
  readonly executor: MonitoredExecutor;
  /** Prefix of the alarm names and the dashboard name, e.g. `tasklane-orders`. */
  readonly namePrefix: string;
  readonly oldestMessageAgeThreshold: Duration;
  readonly alarmActions: readonly IAlarmAction[];
  /** Prices of the cost graph. @default us-east-1 on-demand list prices (docs/cost.md) */
  readonly prices?: PriceTable;
  /** The executor has a payload bucket: the cost graph adds its S3 requests. @default false */
  readonly claimCheck?: boolean;
}

const FIVE_MINUTES = Duration.minutes(5);

/** The executor's alarms and its CloudWatch dashboard. */
export class ExecutorMonitoring extends Construct {
  /** A dead letter in the work queue's DLQ: a message SQS gave up on after maxReceiveCount. */
  readonly deadLetterAlarm: Alarm;
  /** A schedule delivery or a sweeper run that failed. */
  readonly scheduleDeadLetterAlarm: Alarm;
  /** Tasks wait longer than the threshold: workers are too few, throttled or failing. */
  readonly oldestMessageAgeAlarm: Alarm;
  /** Worker invocations that failed as a whole (a crash or a timeout, not a task failure). */
  readonly workerErrorsAlarm: Alarm;
  readonly workerThrottlesAlarm: Alarm;
  readonly sweeperErrorsAlarm: Alarm;
  /**
   * The sweeper has not run for 5 minutes (no invocations; missing data breaches): its
   * schedule was deleted or disabled, or Scheduler cannot start it.
   */
  readonly sweeperNotRunningAlarm: Alarm;
  /** Tasks were declared DEAD (by the worker or the sweeper): they need a look and a redrive. */
  readonly deadTasksAlarm: Alarm;
  /**
   * The alarms of each lane other than `default` (whose alarms are the ones above): its DLQ
   * depth and its oldest message's age, named `<prefix>-<Lane>LaneDeadLetterDepth` and
   * `…LaneOldestMessageAge`.
   */
  readonly laneAlarms: ReadonlyMap<string, LaneAlarms>;
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ExecutorMonitoringProps) {
    super(scope, id);
    const { executor } = props;
    const above = (
      alarmId: string,
      metric: IMetric,
      threshold: number,
      description: string,
    ): Alarm => {
      const alarm = new Alarm(this, alarmId, {
        alarmName: `${props.namePrefix}-${alarmId}`,
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      alarm.addAlarmAction(...props.alarmActions);
      alarm.addOkAction(...props.alarmActions);
      return alarm;
    };
    this.deadLetterAlarm = above(
      'DeadLetterDepth',
      executor.metricDeadLetterDepth({ period: Duration.minutes(1) }),
      0,
      'The work queue DLQ holds messages: SQS gave up on a task message. Its DynamoDB record tells what happened.',
    );
    this.scheduleDeadLetterAlarm = above(
      'ScheduleDeadLetterDepth',
      executor.scheduleDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: Duration.minutes(1),
      }),
      0,
      'A schedule delivery or a sweeper run failed; the message in the schedule DLQ says why.',
    );
    const ageSeconds = props.oldestMessageAgeThreshold.toSeconds();
    this.oldestMessageAgeAlarm = above(
      'OldestMessageAge',
      executor.metricOldestMessageAge({ period: FIVE_MINUTES }),
      ageSeconds,
      `A task message has waited more than ${ageSeconds} s: workers are too few, throttled or failing.`,
    );
    this.workerErrorsAlarm = above(
      'WorkerErrors',
      executor.metricWorkerErrors({ period: FIVE_MINUTES }),
      0,
      'Worker invocations failed as a whole (crash or timeout); their batches will be retried.',
    );
    this.workerThrottlesAlarm = above(
      'WorkerThrottles',
      executor.worker.metricThrottles({ statistic: 'Sum', period: FIVE_MINUTES }),
      0,
      'The worker was throttled: raise reserved or account concurrency, or lower maxConcurrency.',
    );
    this.sweeperErrorsAlarm = above(
      'SweeperErrors',
      executor.sweeper.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES }),
      0,
      'The sweeper failed; expired leases and unsent tasks wait until it succeeds.',
    );
    this.sweeperNotRunningAlarm = new Alarm(this, 'SweeperNotRunning', {
      alarmName: `${props.namePrefix}-SweeperNotRunning`,
      metric: executor.sweeper.metricInvocations({ statistic: 'Sum', period: FIVE_MINUTES }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      // Lambda publishes no Invocations datapoint for a function that did not run.
      treatMissingData: TreatMissingData.BREACHING,
      alarmDescription:
        'The sweeper has not run for 5 minutes: its schedule was deleted or disabled, or Scheduler cannot start it. Expired leases and unsent tasks wait until it runs again.',
    });
    this.sweeperNotRunningAlarm.addAlarmAction(...props.alarmActions);
    this.sweeperNotRunningAlarm.addOkAction(...props.alarmActions);
    this.deadTasksAlarm = above(
      'DeadTasks',
      executor.metricDeadTasks({ period: Duration.minutes(1) }),
      0,
      "Tasks were declared DEAD (attempts used up, a permanent error, an unknown type or an invalid payload). TaskClient.list({ status: 'DEAD' }) shows them with their reason; redrive them once the cause is fixed.",
    );
    const laneAlarms = new Map<string, LaneAlarms>();
    const laneGraphs: GraphWidget[] = [];
    for (const [lane, queues] of executor.lanes) {
      if (lane === DEFAULT_LANE) continue;
      const id = `${laneIdPart(lane)}Lane`;
      const depth = queues.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
      });
      const age = queues.workQueue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum' });
      laneAlarms.set(lane, {
        deadLetterAlarm: above(
          `${id}DeadLetterDepth`,
          depth.with({ period: Duration.minutes(1) }),
          0,
          `The DLQ of the lane ${lane} holds messages: SQS gave up on a task message. Its DynamoDB record tells what happened.`,
        ),
        oldestMessageAgeAlarm: above(
          `${id}OldestMessageAge`,
          age.with({ period: FIVE_MINUTES }),
          ageSeconds,
          `A task message of the lane ${lane} has waited more than ${ageSeconds} s: the lane's maxConcurrency is too low for its load, or its workers are throttled or failing.`,
        ),
      });
      laneGraphs.push(
        new GraphWidget({
          title: `Lane ${lane}`,
          left: [
            queues.workQueue.metricApproximateNumberOfMessagesVisible({ label: 'waiting' }),
            queues.workQueue.metricApproximateNumberOfMessagesNotVisible({ label: 'in flight' }),
            depth.with({ label: 'dead letters' }),
          ],
          right: [age.with({ label: 'oldest message (s)' })],
        }),
      );
    }
    this.laneAlarms = laneAlarms;
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.namePrefix });
    const alarms = [
      this.deadLetterAlarm,
      this.scheduleDeadLetterAlarm,
      this.oldestMessageAgeAlarm,
      this.workerErrorsAlarm,
      this.workerThrottlesAlarm,
      this.sweeperErrorsAlarm,
      this.sweeperNotRunningAlarm,
      this.deadTasksAlarm,
      ...[...laneAlarms.values()].flatMap((l) => [l.deadLetterAlarm, l.oldestMessageAgeAlarm]),
    ];
    this.dashboard.addWidgets(
      new AlarmStatusWidget({
        title: 'Alarms',
        width: 24,
        // By name, not by reference: moto's CloudFormation skips alarms, and a reference
        // to a skipped resource fails the deployment into the emulator.
        alarms: alarms.map((alarm) =>
          Alarm.fromAlarmName(this, `${alarm.node.id}Ref`, `${props.namePrefix}-${alarm.node.id}`),
        ),
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Work queue',
        left: [
          executor.workQueue.metricApproximateNumberOfMessagesVisible({ label: 'waiting' }),
          executor.workQueue.metricApproximateNumberOfMessagesNotVisible({ label: 'in flight' }),
          executor.metricDeadLetterDepth({ label: 'dead letters' }),
        ],
        right: [executor.metricOldestMessageAge({ label: 'oldest message (s)' })],
      }),
      new GraphWidget({
        title: 'Worker',
        left: [
          executor.worker.metricInvocations({ label: 'invocations' }),
          executor.metricWorkerErrors({ label: 'errors' }),
          executor.worker.metricThrottles({ label: 'throttles' }),
        ],
        right: [executor.worker.metricDuration({ statistic: 'p99', label: 'duration p99' })],
      }),
      new GraphWidget({
        title: 'Tasks',
        left: [
          executor.metricTasks(MetricName.STARTED, { label: 'started' }),
          executor.metricTasks(MetricName.SUCCEEDED, { label: 'succeeded' }),
          executor.metricTasks(MetricName.FAILED, { label: 'failed attempts' }),
          executor.metricTasks(MetricName.RETRIED, { label: 'retried' }),
          executor.metricDeadTasks({ label: 'dead' }),
        ],
        right: [
          executor.metricTasks(MetricName.DURATION, { label: 'run time p99 (ms)' }),
          executor.metricTasks(MetricName.QUEUE_LATENCY, { label: 'queue latency p99 (ms)' }),
        ],
      }),
      new GraphWidget({
        title: 'Sweeper',
        left: [
          executor.sweeper.metricInvocations({ label: 'invocations' }),
          executor.sweeper.metricErrors({ label: 'errors' }),
        ],
      }),
      costWidget(executor, props.prices, { claimCheck: props.claimCheck === true }),
    );
    // A row per lane: its queue and DLQ next to each other lane's.
    if (laneGraphs.length > 0) this.dashboard.addWidgets(...laneGraphs);
  }
}

/** A lane's own alarms; see {@link ExecutorMonitoring.laneAlarms}. */
export interface LaneAlarms {
  /** A dead letter in the lane's DLQ. */
  readonly deadLetterAlarm: Alarm;
  /** The lane's oldest message is older than the threshold. */
  readonly oldestMessageAgeAlarm: Alarm;
}

/**
 * One of the metrics the worker (and, for DEAD, the sweeper) publishes as EMF, for the
 * executor whose `service` dimension is `serviceName`: counts default to the sum over the
 * period, `TaskDuration` and `QueueLatency` (milliseconds) to p99.
 */
export function taskMetric(
  serviceName: string,
  metricName: MetricName,
  props?: MetricOptions,
): Metric {
  const timing = metricName === MetricName.DURATION || metricName === MetricName.QUEUE_LATENCY;
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: serviceName },
    statistic: timing ? 'p99' : 'Sum',
    ...props,
  });
}
