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
export function costWidget(executor: CostSource, prices: PriceTable = DEFAULT_PRICES): GraphWidget {
  const period = Duration.minutes(5);
  const metric = (name: MetricName) => executor.metricTasks(name, { period, statistic: 'Sum' });
  const usingMetrics = {
    tasks: metric(MetricName.METERED_TASKS),
    sqs: metric(MetricName.SQS_REQUESTS),
    wcu: metric(MetricName.WRITE_UNITS),
    rcu: metric(MetricName.READ_UNITS),
    s3w: metric(MetricName.S3_WRITE_REQUESTS),
    s3r: metric(MetricName.S3_READ_REQUESTS),
    invocations: executor.worker.metricInvocations({ period, statistic: 'Sum' }),
  };
  // S3's metrics exist only where the claim check was used: FILL counts their gaps as 0.
  const s3 = s3Prices(prices);
  const worker = `(sqs * ${prices.sqsPerMillionRequests} + wcu * ${prices.dynamodbPerMillionWriteUnits} + rcu * ${prices.dynamodbPerMillionReadUnits} + FILL(s3w, 0) * ${s3.write} + FILL(s3r, 0) * ${s3.read})`;
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
    ],
  });
}
