/**
 * The dashboard's run-time cost graph: what the worker's own requests cost per million
 * tasks, from the metrics it publishes (docs/cost.md), priced with a {@link PriceTable}.
 */
import { Duration } from 'aws-cdk-lib';
import {
  GraphWidget,
  type IMetric,
  MathExpression,
  type MetricOptions,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { DEFAULT_PRICES, type PriceTable, s3Prices } from '../observability/cost.js';
import { MetricName } from '../observability/metrics.js';

/** What the cost graph reads. */
export interface CostSource {
  readonly worker: IFunction;
  metricTasks(metricName: MetricName, props?: MetricOptions): IMetric;
}

/**
 * Per-million prices times counts over tasks is dollars per million tasks. The event source
 * mapping's receive and delete (one each per invocation) are not the worker's requests, so
 * the second line adds them, estimated from the invocations.
 */
export function costWidget(
  executor: CostSource,
  prices: PriceTable = DEFAULT_PRICES,
  options: { readonly claimCheck?: boolean } = {},
): GraphWidget {
  const period = Duration.minutes(5);
  const metric = (name: MetricName) => executor.metricTasks(name, { period, statistic: 'Sum' });
  const usingMetrics = {
    tasks: metric(MetricName.METERED_TASKS),
    sqs: metric(MetricName.SQS_REQUESTS),
    wcu: metric(MetricName.WRITE_UNITS),
    rcu: metric(MetricName.READ_UNITS),
    invocations: executor.worker.metricInvocations({ period, statistic: 'Sum' }),
  };
  const worker = `(sqs * ${prices.sqsPerMillionRequests} + wcu * ${prices.dynamodbPerMillionWriteUnits} + rcu * ${prices.dynamodbPerMillionReadUnits})`;
  const pollers = `(2 * invocations * ${prices.sqsPerMillionRequests})`;
  const perTask = (sum: string) => `${sum} / IF(tasks > 0, tasks, 1)`;
  return new GraphWidget({
    title: `Measured cost per million tasks (USD, ${prices.region} prices of ${prices.asOf})`,
    width: 12,
    left: [
      new MathExpression({
        expression: perTask(worker),
        usingMetrics,
        period,
        label: "worker's requests (measured)",
      }),
      new MathExpression({
        expression: perTask(`(${worker} + ${pollers})`),
        usingMetrics,
        period,
        label: 'with the event source mapping (2 requests per invocation)',
      }),
      ...(options.claimCheck === true
        ? [claimCheckLine(metric, usingMetrics, worker, pollers, prices)]
        : []),
    ],
  });
}

/**
 * With a payload bucket, a third line adds the claim check's S3 requests (published only by
 * a worker that made some; FILL counts a period without them as 0).
 */
function claimCheckLine(
  metric: (name: MetricName) => IMetric,
  usingMetrics: Record<string, IMetric>,
  worker: string,
  pollers: string,
  prices: PriceTable,
): MathExpression {
  const s3 = s3Prices(prices);
  const requests = `(FILL(s3w, 0) * ${s3.write} + FILL(s3r, 0) * ${s3.read})`;
  return new MathExpression({
    expression: `(${worker} + ${pollers} + ${requests}) / IF(tasks > 0, tasks, 1)`,
    usingMetrics: {
      ...usingMetrics,
      s3w: metric(MetricName.S3_WRITE_REQUESTS),
      s3r: metric(MetricName.S3_READ_REQUESTS),
    },
    period: Duration.minutes(5),
    label: "with the claim check's S3 requests",
  });
}
