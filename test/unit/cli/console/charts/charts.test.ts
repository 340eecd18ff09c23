import { describe, expect, it } from 'vitest';
import {
  bucketStarts,
  percentile,
  total,
} from '../../../../../packages/cli/src/console/charts/chart-data.js';
import {
  metricQueries,
  serviceFromQueue,
} from '../../../../../packages/cli/src/console/charts/cloudwatch-charts.js';
import { chartFromRecords } from '../../../../../packages/cli/src/console/charts/record-charts.js';
import { AuditEvent, TaskStatus } from '../../../../../src/core/constants.js';
import type { HistoryEntry } from '../../../../../src/core/record.js';
import { taskRecord } from '../../../../helpers/task-record.js';

const NOW = Date.parse('2026-03-10T12:30:30Z');
const at = (hhmmss: string) => Date.parse(`2026-03-10T${hhmmss}Z`);
const entry = (event: string, time: string, status: string, attempt: number): HistoryEntry =>
  ({ event, at: at(time), status, attempt }) as HistoryEntry;

describe('chart buckets and percentiles', () => {
  it('covers the hour before now in 60 minute buckets, the last holding now', () => {
    // Act
    const starts = bucketStarts(NOW);

    // Assert
    expect(starts).toHaveLength(60);
    expect(starts[59]).toBe(at('12:30:00'));
    expect(starts[0]).toBe(at('11:31:00'));
  });

  it('takes the nearest-rank percentile, and none of nothing', () => {
    // Act / Assert
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(
      percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 100], 95),
    ).toBe(19);
    expect(percentile([], 95)).toBeNull();
    expect(total([1, null, 2])).toBe(3);
  });
});

describe('chartFromRecords', () => {
  it('counts starts, successes, failures and deaths by minute, and the waits and runs between them', () => {
    // Arrange
    const ok = taskRecord({
      id: 'ok',
      createdAt: at('12:10:00'),
      status: TaskStatus.SUCCEEDED,
      history: [
        entry(AuditEvent.SUBMITTED, '12:10:00', TaskStatus.PENDING, 0),
        entry(AuditEvent.CLAIMED, '12:10:02', TaskStatus.RUNNING, 1),
        entry(AuditEvent.RETRY_SCHEDULED, '12:10:05', TaskStatus.QUEUED, 1),
        entry(AuditEvent.CLAIMED, '12:11:30', TaskStatus.RUNNING, 2),
        entry(AuditEvent.SUCCEEDED, '12:11:34', TaskStatus.SUCCEEDED, 2),
      ],
    });
    const dead = taskRecord({
      id: 'dead',
      createdAt: at('12:10:30'),
      status: TaskStatus.DEAD,
      history: [
        entry(AuditEvent.SUBMITTED, '12:10:30', TaskStatus.PENDING, 0),
        entry(AuditEvent.CLAIMED, '12:10:31', TaskStatus.RUNNING, 1),
        entry(AuditEvent.DEAD, '12:10:41', TaskStatus.DEAD, 1),
      ],
    });
    const waiting = taskRecord({
      id: 'waiting',
      status: TaskStatus.PENDING,
      history: [entry(AuditEvent.SUBMITTED, '12:29:00', TaskStatus.PENDING, 0)],
    });
    const i = (hhmm: string) => bucketStarts(NOW).indexOf(at(`${hhmm}:00`));

    // Act
    const chart = chartFromRecords([ok, dead, waiting], NOW);

    // Assert
    expect(chart.series.started[i('12:10')]).toBe(2);
    expect(chart.series.started[i('12:11')]).toBe(1);
    expect(chart.series.succeeded[i('12:11')]).toBe(1);
    expect(chart.series.failed[i('12:10')]).toBe(2);
    expect(chart.series.dead[i('12:10')]).toBe(1);
    // The waits of the first claims (2 s, 1 s); the claim after a retry is its backoff.
    expect(chart.series.waitP50[i('12:10')]).toBe(1000);
    expect(chart.series.waitP95[i('12:10')]).toBe(2000);
    expect(chart.series.waitP50[i('12:11')]).toBeNull();
    // Runs by their end: 3 s and 10 s at 12:10, 4 s at 12:11.
    expect(chart.series.runP95[i('12:10')]).toBe(10_000);
    expect(chart.series.runP50[i('12:11')]).toBe(4000);
    // Waiting between submit and claim, and after the retry until its claim.
    expect(chart.series.depth[i('12:10')]).toBe(1);
    expect(chart.series.depth[i('12:27')]).toBe(0);
    expect(chart.series.depth[i('12:29')]).toBe(1);
    expect(chart.series.depth[59]).toBe(1);
  });
});

describe('the CloudWatch chart source', () => {
  it('reads the service name from the work queue the construct names', () => {
    // Act / Assert
    expect(serviceFromQueue('https://sqs.eu-west-1.amazonaws.com/1/orders-work.fifo')).toBe(
      'tasklane-orders',
    );
    expect(serviceFromQueue('my-own-queue.fifo')).toBeUndefined();
  });

  it('asks for the worker’s counts and percentiles and each queue’s visible messages, by minute', () => {
    // Act
    const queries = metricQueries({ service: 'tasklane-orders', queueNames: ['a.fifo', 'b.fifo'] });

    // Assert
    expect(queries.map((q) => [q.MetricStat?.Metric?.MetricName, q.MetricStat?.Stat])).toEqual([
      ['TasksStarted', 'Sum'],
      ['TasksSucceeded', 'Sum'],
      ['TasksFailed', 'Sum'],
      ['TasksDead', 'Sum'],
      ['QueueLatency', 'p50'],
      ['QueueLatency', 'p95'],
      ['TaskDuration', 'p50'],
      ['TaskDuration', 'p95'],
      ['ApproximateNumberOfMessagesVisible', 'Maximum'],
      ['ApproximateNumberOfMessagesVisible', 'Maximum'],
    ]);
    expect(queries.every((q) => q.MetricStat?.Period === 60)).toBe(true);
    expect(queries[0]?.MetricStat?.Metric?.Dimensions).toEqual([
      { Name: 'service', Value: 'tasklane-orders' },
    ]);
    expect(queries[9]?.MetricStat?.Metric?.Dimensions).toEqual([
      { Name: 'QueueName', Value: 'b.fifo' },
    ]);
  });
});
