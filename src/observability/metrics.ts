import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Usage } from './usage-meter.js';

/** CloudWatch namespace of Tasklane's metrics. */
export const METRICS_NAMESPACE = 'Tasklane';

/**
 * What happened to a task, counted once each time it happens:
 * - `started`: an attempt was claimed (the task is RUNNING under this worker's lease).
 * - `succeeded`: an attempt's success was written.
 * - `failed`: a handler threw or timed out; every failed attempt, retried or not.
 * - `retried`: a failed attempt's retry was written (another attempt follows).
 * - `dead`: the task was declared DEAD (attempts used up, a permanent error, an unknown type,
 *   an invalid payload, or a lease that expired on the final attempt).
 */
export const TaskOutcome = {
  STARTED: 'started',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  RETRIED: 'retried',
  DEAD: 'dead',
  /** A record whose integrity tag did not verify (docs/security.md). */
  INTEGRITY_FAILED: 'integrity-failed',
} as const;

/** One of {@link TaskOutcome}. */
export type TaskOutcome = (typeof TaskOutcome)[keyof typeof TaskOutcome];

/**
 * The metric names in the `Tasklane` namespace, with the dimension `service` (the function's
 * `POWERTOOLS_SERVICE_NAME`, `tasklane-<executor>` in the CDK construct).
 */
export const MetricName = {
  STARTED: 'TasksStarted',
  SUCCEEDED: 'TasksSucceeded',
  FAILED: 'TasksFailed',
  RETRIED: 'TasksRetried',
  DEAD: 'TasksDead',
  /** Records refused because their integrity tag did not verify. */
  INTEGRITY_FAILED: 'TasksIntegrityFailed',
  /** A handler run, in milliseconds. */
  DURATION: 'TaskDuration',
  /** From a message's SentTimestamp to its first pickup, in milliseconds. */
  QUEUE_LATENCY: 'QueueLatency',
  /**
   * Run-time cost (docs/cost.md): messages the worker processed, and what its own requests
   * for them cost. Published per batch with the `service` dimension, and again with
   * `service` and `taskType` (`(batch)` for requests made for the batch as a whole).
   */
  METERED_TASKS: 'MeteredTasks',
  SQS_REQUESTS: 'SqsRequests',
  DYNAMODB_REQUESTS: 'DynamoDbRequests',
  WRITE_UNITS: 'WriteUnits',
  READ_UNITS: 'ReadUnits',
  /** The claim check's S3 requests at the PUT rate (PutObject). */
  S3_WRITE_REQUESTS: 'S3WriteRequests',
  /** The claim check's S3 requests at the GET rate (GetObject). */
  S3_READ_REQUESTS: 'S3ReadRequests',
} as const;

/** One of {@link MetricName}. */
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

const OUTCOME_METRIC: Readonly<Record<TaskOutcome, MetricName>> = {
  started: MetricName.STARTED,
  succeeded: MetricName.SUCCEEDED,
  failed: MetricName.FAILED,
  retried: MetricName.RETRIED,
  dead: MetricName.DEAD,
  'integrity-failed': MetricName.INTEGRITY_FAILED,
};

/**
 * What the worker (and the sweeper, for the tasks it declares DEAD) reports. Values are
 * buffered and published by {@link flush}, once per batch.
 */
export interface TaskMetrics {
  /** Counts `count` (default 1) occurrences of an outcome. */
  count(outcome: TaskOutcome, count?: number): void;
  /** A handler run's duration, in milliseconds. */
  duration(ms: number): void;
  /**
   * How long a message waited before a worker first took it up: receipt minus the message's
   * SentTimestamp, in milliseconds. Only first receives are measured; a redelivery's age
   * would count the earlier attempts and the retry delay, not the wait for a worker.
   */
  queueLatency(ms: number): void;
  /**
   * What the worker's own requests cost for the `tasks` messages of one task type in a
   * batch (see {@link Usage}); `taskType` is `(batch)` for requests made for the batch as
   * a whole. Optional, so metrics written before it need no change.
   */
  usage?(taskType: string, usage: Usage, tasks: number): void;
  /** Publishes what was recorded since the last flush; nothing when nothing was. */
  flush(): void;
}

/** Metrics that go nowhere: for tests and for embedding where another channel reports. */
export const noopMetrics: TaskMetrics = {
  count: () => undefined,
  duration: () => undefined,
  queueLatency: () => undefined,
  flush: () => undefined,
};

/** Options of {@link powertoolsMetrics}. */
export interface PowertoolsMetricsOptions {
  /** @default 'Tasklane' */
  readonly namespace?: string;
  /** The `service` dimension. @default POWERTOOLS_SERVICE_NAME, else 'tasklane' */
  readonly serviceName?: string;
  /** The Powertools instance to publish through. @default a new one from the options */
  readonly metrics?: Metrics;
}

/**
 * The default {@link TaskMetrics}: Powertools for AWS Lambda Metrics, which writes one
 * CloudWatch Embedded Metric Format (EMF) document per flush to stdout. In Lambda, CloudWatch
 * Logs turns it into metrics; no API call is made. `POWERTOOLS_METRICS_DISABLED=true` (or
 * `POWERTOOLS_DEV`) turns the output off.
 */
export function powertoolsMetrics(options: PowertoolsMetricsOptions = {}): TaskMetrics {
  // Made on first use: a cold start that records nothing pays nothing for it.
  let made = options.metrics;
  const instance = (): Metrics => {
    made ??= new Metrics({
      namespace: options.namespace ?? METRICS_NAMESPACE,
      serviceName: options.serviceName ?? process.env.POWERTOOLS_SERVICE_NAME ?? 'tasklane',
    });
    return made;
  };
  // Powertools warns on an empty flush; a batch of duplicates records nothing.
  let pending = false;
  const add = (
    name: MetricName,
    unit: (typeof MetricUnit)[keyof typeof MetricUnit],
    value: number,
  ) => {
    instance().addMetric(name, unit, value);
    pending = true;
  };
  // One instance per task type, made on first use, so each type's figures are one document.
  const byType = new Map<string, Metrics>();
  const usageOf = (taskType: string): Metrics => {
    let typed = byType.get(taskType);
    if (typed === undefined) {
      typed = new Metrics({
        namespace: options.namespace ?? METRICS_NAMESPACE,
        serviceName: options.serviceName ?? process.env.POWERTOOLS_SERVICE_NAME ?? 'tasklane',
        defaultDimensions: { taskType },
      });
      byType.set(taskType, typed);
    }
    return typed;
  };
  const typedPending = new Set<string>();
  return {
    count: (outcome, count = 1) => add(OUTCOME_METRIC[outcome], MetricUnit.Count, count),
    duration: (ms) => add(MetricName.DURATION, MetricUnit.Milliseconds, ms),
    queueLatency: (ms) => add(MetricName.QUEUE_LATENCY, MetricUnit.Milliseconds, ms),
    usage: (taskType, usage, tasks) => {
      const typed = usageOf(taskType);
      for (const [name, value] of usageFigures(usage, tasks)) {
        add(name, MetricUnit.Count, value);
        typed.addMetric(name, MetricUnit.Count, value);
      }
      typedPending.add(taskType);
    },
    flush: () => {
      for (const taskType of typedPending) usageOf(taskType).publishStoredMetrics();
      typedPending.clear();
      if (!pending) return;
      pending = false;
      instance().publishStoredMetrics();
    },
  };
}

/** The run-time cost metrics of one usage record. */
function usageFigures(usage: Usage, tasks: number): [MetricName, number][] {
  return [
    [MetricName.METERED_TASKS, tasks],
    [MetricName.SQS_REQUESTS, usage.sqsRequests],
    [MetricName.DYNAMODB_REQUESTS, usage.dynamodbRequests],
    [MetricName.WRITE_UNITS, usage.writeUnits],
    [MetricName.READ_UNITS, usage.readUnits],
    // Only where the claim check was used: most workers never send S3 a request.
    ...s3Figure(MetricName.S3_WRITE_REQUESTS, usage.s3WriteRequests),
    ...s3Figure(MetricName.S3_READ_REQUESTS, usage.s3ReadRequests),
  ];
}

function s3Figure(name: MetricName, value: number | undefined): [MetricName, number][] {
  return value === undefined ? [] : [[name, value]];
}
