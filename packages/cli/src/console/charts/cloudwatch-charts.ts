/**
 * The charts drawn from CloudWatch, for a deployed executor: the worker's EMF metrics
 * (namespace `Tasklane`, dimension `service`; docs/operations.md#metrics) and the work
 * queues' own SQS metrics, in one GetMetricData call per drawing.
 */
import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
} from '@aws-sdk/client-cloudwatch';
import { MetricName } from 'tasklane';
import { bucketStarts, CHART_STEP_MS, type ChartSeries, type ChartSource } from './chart-data.js';

/** The namespace the worker publishes in (`METRICS_NAMESPACE`). */
const NAMESPACE = 'Tasklane';

/** Options of {@link cloudWatchChartSource}. */
export interface CloudWatchChartOptions {
  readonly cloudwatch: CloudWatchClient;
  /**
   * The `service` dimension of the executor's metrics: the construct's `serviceName`,
   * `tasklane-<name>`.
   */
  readonly service: string;
  /** The work queues' names (every lane's), whose visible messages are the queue depth. */
  readonly queueNames: readonly string[];
}

/** Which metric and statistic fills each series. */
const WORKER_SERIES: readonly [keyof ChartSeries, string, string][] = [
  ['started', MetricName.STARTED, 'Sum'],
  ['succeeded', MetricName.SUCCEEDED, 'Sum'],
  ['failed', MetricName.FAILED, 'Sum'],
  ['dead', MetricName.DEAD, 'Sum'],
  ['waitP50', MetricName.QUEUE_LATENCY, 'p50'],
  ['waitP95', MetricName.QUEUE_LATENCY, 'p95'],
  ['runP50', MetricName.DURATION, 'p50'],
  ['runP95', MetricName.DURATION, 'p95'],
];

/**
 * The service name of an executor from its work queue's URL or name: the construct names the
 * queue `<name>-work.fifo` and the service `tasklane-<name>`. Undefined for another name.
 */
export function serviceFromQueue(queue: string): string | undefined {
  const name = queue.slice(queue.lastIndexOf('/') + 1);
  const match = /^(.+)-work\.fifo$/.exec(name);
  return match?.[1] === undefined ? undefined : `tasklane-${match[1]}`;
}

/** The queries of one drawing (exported for its test). */
export function metricQueries(
  options: Omit<CloudWatchChartOptions, 'cloudwatch'>,
): MetricDataQuery[] {
  const worker = WORKER_SERIES.map(([series, metric, stat]) => ({
    Id: series.toLowerCase(),
    Label: series,
    MetricStat: {
      Metric: {
        Namespace: NAMESPACE,
        MetricName: metric,
        Dimensions: [{ Name: 'service', Value: options.service }],
      },
      Period: CHART_STEP_MS / 1000,
      Stat: stat,
    },
    ReturnData: true,
  }));
  const queues = options.queueNames.map((queue, i) => ({
    Id: `depth${i}`,
    Label: queue,
    MetricStat: {
      Metric: {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: queue }],
      },
      Period: CHART_STEP_MS / 1000,
      Stat: 'Maximum',
    },
    ReturnData: true,
  }));
  return [...worker, ...queues];
}

/** A chart source over CloudWatch's metrics of the executor. */
export function cloudWatchChartSource(options: CloudWatchChartOptions): ChartSource {
  return {
    kind: 'cloudwatch',
    async lastHour(now) {
      const times = bucketStarts(now);
      const first = times[0] ?? now;
      const slot = new Map(times.map((t, i) => [t, i]));
      const values = new Map<string, (number | null)[]>();
      let token: string | undefined;
      do {
        const out = await options.cloudwatch.send(
          new GetMetricDataCommand({
            MetricDataQueries: metricQueries(options),
            StartTime: new Date(first),
            EndTime: new Date(first + times.length * CHART_STEP_MS),
            ScanBy: 'TimestampAscending',
            NextToken: token,
          }),
        );
        for (const result of out.MetricDataResults ?? []) {
          const id = result.Id ?? '';
          const series = values.get(id) ?? times.map((): number | null => null);
          (result.Timestamps ?? []).forEach((at, i) => {
            const index = slot.get(Math.floor(at.getTime() / CHART_STEP_MS) * CHART_STEP_MS);
            const value = result.Values?.[i];
            if (index !== undefined && typeof value === 'number' && Number.isFinite(value)) {
              series[index] = value;
            }
          });
          values.set(id, series);
        }
        token = out.NextToken;
      } while (token !== undefined && token !== '');
      const empty = times.map((): number | null => null);
      const get = (series: keyof ChartSeries) => values.get(series.toLowerCase()) ?? empty;
      const depth = times.map((_, i) => {
        const points = options.queueNames.map((_, q) => values.get(`depth${q}`)?.[i] ?? null);
        return points.every((p) => p === null)
          ? null
          : points.reduce<number>((sum, p) => sum + (p ?? 0), 0);
      });
      const notes =
        get('started').every((v) => v === null) && get('succeeded').every((v) => v === null)
          ? [
              `no ${NAMESPACE} metrics for service "${options.service}" in the hour: no task ran, or the worker publishes under another service name (--metrics-service)`,
            ]
          : [];
      return {
        source: 'cloudwatch',
        times,
        stepMs: CHART_STEP_MS,
        series: {
          // No data point for a count means nothing happened in that minute.
          started: zeroed(get('started')),
          succeeded: zeroed(get('succeeded')),
          failed: zeroed(get('failed')),
          dead: zeroed(get('dead')),
          waitP50: get('waitP50'),
          waitP95: get('waitP95'),
          runP50: get('runP50'),
          runP95: get('runP95'),
          depth,
        },
        notes,
      };
    },
  };
}

function zeroed(series: readonly (number | null)[]): number[] {
  return series.map((v) => v ?? 0);
}
