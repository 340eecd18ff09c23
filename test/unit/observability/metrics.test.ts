import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MetricName,
  noopMetrics,
  powertoolsMetrics,
  TaskOutcome,
} from '../../../src/observability/metrics.js';

/** The EMF documents and warnings written while `act` runs (stdout and stderr captured). */
function captureOutput(act: () => void): { emf: Record<string, unknown>[]; stderr: string } {
  const lines: string[] = [];
  let stderr = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    act();
  } finally {
    stdout.mockRestore();
    err.mockRestore();
  }
  const emf = lines
    .join('')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { emf, stderr };
}

describe('powertoolsMetrics', () => {
  beforeEach(() => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_DEV', 'false');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('publishes one EMF document per flush: namespace Tasklane, dimension service', () => {
    // Arrange
    const metrics = powertoolsMetrics({ serviceName: 'tasklane-orders' });

    // Act
    const { emf } = captureOutput(() => {
      metrics.count(TaskOutcome.STARTED);
      metrics.count(TaskOutcome.STARTED);
      metrics.count(TaskOutcome.SUCCEEDED);
      metrics.count(TaskOutcome.FAILED);
      metrics.count(TaskOutcome.RETRIED);
      metrics.count(TaskOutcome.DEAD, 3);
      metrics.duration(120);
      metrics.duration(30);
      metrics.queueLatency(2500);
      metrics.flush();
    });

    // Assert
    expect(emf).toHaveLength(1);
    const [document] = emf;
    expect(document).toMatchObject({
      service: 'tasklane-orders',
      [MetricName.STARTED]: [1, 1],
      [MetricName.SUCCEEDED]: 1,
      [MetricName.FAILED]: 1,
      [MetricName.RETRIED]: 1,
      [MetricName.DEAD]: 3,
      [MetricName.DURATION]: [120, 30],
      [MetricName.QUEUE_LATENCY]: 2500,
    });
    const aws = document?._aws as { CloudWatchMetrics: unknown[] } | undefined;
    const directive = aws?.CloudWatchMetrics[0];
    expect(directive).toMatchObject({ Namespace: 'Tasklane', Dimensions: [['service']] });
    expect((directive as { Metrics: unknown[] }).Metrics).toEqual(
      expect.arrayContaining([
        { Name: MetricName.DEAD, Unit: 'Count' },
        { Name: MetricName.DURATION, Unit: 'Milliseconds' },
        { Name: MetricName.QUEUE_LATENCY, Unit: 'Milliseconds' },
      ]),
    );
  });

  it('starts afresh after a flush, so a batch publishes only its own values', () => {
    const metrics = powertoolsMetrics({ serviceName: 'svc' });

    const { emf } = captureOutput(() => {
      metrics.count(TaskOutcome.SUCCEEDED);
      metrics.flush();
      metrics.count(TaskOutcome.DEAD);
      metrics.flush();
    });

    expect(emf).toHaveLength(2);
    expect(emf[1]).toHaveProperty(MetricName.DEAD, 1);
    expect(emf[1]).not.toHaveProperty(MetricName.SUCCEEDED);
  });

  it('writes nothing, not even a warning, when a batch recorded nothing', () => {
    const metrics = powertoolsMetrics({ serviceName: 'svc' });

    const { emf, stderr } = captureOutput(() => metrics.flush());

    expect(emf).toEqual([]);
    expect(stderr).toBe('');
  });

  it('takes the service from POWERTOOLS_SERVICE_NAME, as the construct sets it', () => {
    vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'tasklane-from-env');
    const metrics = powertoolsMetrics();

    const { emf } = captureOutput(() => {
      metrics.count(TaskOutcome.DEAD);
      metrics.flush();
    });

    expect(emf[0]).toHaveProperty('service', 'tasklane-from-env');
  });

  it('publishes run-time cost by task type, and in total with the service dimension only', () => {
    // Arrange
    const metrics = powertoolsMetrics({ serviceName: 'svc' });
    const usage = { sqsRequests: 1, dynamodbRequests: 6, writeUnits: 9, readUnits: 0.5 };

    // Act
    const { emf } = captureOutput(() => {
      metrics.usage?.('send-email', usage, 3);
      metrics.usage?.('(batch)', { ...usage, dynamodbRequests: 0, writeUnits: 0 }, 0);
      metrics.flush();
    });

    // Assert: one document per task type, then the totals.
    expect(emf).toHaveLength(3);
    expect(emf[0]).toMatchObject({
      service: 'svc',
      taskType: 'send-email',
      [MetricName.METERED_TASKS]: 3,
      [MetricName.SQS_REQUESTS]: 1,
      [MetricName.DYNAMODB_REQUESTS]: 6,
      [MetricName.WRITE_UNITS]: 9,
      [MetricName.READ_UNITS]: 0.5,
    });
    expect(emf[1]).toMatchObject({ taskType: '(batch)', [MetricName.METERED_TASKS]: 0 });
    expect(emf[2]).not.toHaveProperty('taskType');
    expect(emf[2]).toMatchObject({
      [MetricName.WRITE_UNITS]: [9, 0],
      [MetricName.SQS_REQUESTS]: [1, 1],
    });
    const aws = emf[0]?._aws as { CloudWatchMetrics: { Dimensions: string[][] }[] };
    expect(aws.CloudWatchMetrics[0]?.Dimensions[0]).toEqual(
      expect.arrayContaining(['service', 'taskType']),
    );
  });

  it('publishes nothing when POWERTOOLS_METRICS_DISABLED is true', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    const metrics = powertoolsMetrics({ serviceName: 'svc' });

    const { emf } = captureOutput(() => {
      metrics.count(TaskOutcome.DEAD);
      metrics.flush();
    });

    expect(emf).toEqual([]);
  });
});

describe('noopMetrics', () => {
  it('writes nothing', () => {
    const { emf } = captureOutput(() => {
      noopMetrics.count(TaskOutcome.DEAD);
      noopMetrics.duration(1);
      noopMetrics.queueLatency(1);
      noopMetrics.flush();
    });

    expect(emf).toEqual([]);
  });
});
