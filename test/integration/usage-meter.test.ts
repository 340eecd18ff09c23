import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { RequestCounter, type Tally } from '../../bench/lib/request-counter.js';
import { noopMetrics, type TaskMetrics } from '../../src/observability/metrics.js';
import { addUsage, emptyUsage, type Usage } from '../../src/observability/usage-meter.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

const report = defineTask('report', { schema: z.object({ n: z.number() }), handler: () => 'ok' });
const mail = defineTask('mail', { schema: z.object({ n: z.number() }), handler: () => undefined });

/** Requests in a tally, leaving out the operations named (the test harness's own). */
function requests(tally: Tally, harness: readonly string[] = []): number {
  return Object.entries(tally)
    .filter(([key]) => !harness.some((op) => key.startsWith(op)))
    .reduce((sum, [, t]) => sum + t.requests, 0);
}

/** Metrics that keep what the worker reports about usage, by task type. */
function usageRecorder(): TaskMetrics & { byType: Map<string, Usage & { tasks: number }> } {
  const byType = new Map<string, Usage & { tasks: number }>();
  return {
    ...noopMetrics,
    byType,
    usage: (type, usage, tasks) => {
      const total = byType.get(type) ?? { ...emptyUsage(), tasks: 0 };
      addUsage(total, usage);
      total.tasks += tasks;
      byType.set(type, total);
    },
  };
}

const total = (u: Usage) => u.sqsRequests + u.dynamodbRequests;

describe('run-time cost metering', () => {
  it("agrees within 2% with the bench's request count, for the producer and the worker", async () => {
    // Arrange: the bench's counter on the same clients.
    const counter = new RequestCounter();
    counter.attach(executor.clients.sqs);
    counter.attach(executor.clients.dynamodb);
    const client = executor.client();
    const metrics = usageRecorder();
    const worker = executor.worker([report, mail], { metrics });
    const entries = Array.from({ length: 30 }, (_, n) => ({
      task: n % 3 === 0 ? mail : report,
      payload: { n },
    }));

    // Act: enqueue 35 tasks (a batch and five singles), then run them all.
    await client.enqueueBatch(entries);
    for (let n = 0; n < 5; n++) await client.enqueue(report, { n: 100 + n });
    const producerTally = counter.snapshot();
    counter.reset();
    await executor.drain(worker);
    const workerTally = counter.snapshot();

    // Assert: the producer's metered requests against the count, and its task count.
    const produced = client.costReport();
    expect(produced.tasks).toBe(35);
    expect(Math.abs(total(produced.usage) - requests(producerTally))).toBeLessThanOrEqual(
      0.02 * requests(producerTally),
    );
    // The worker's, leaving out the harness's receives and deletes (Lambda's event source
    // mapping makes those, outside the worker).
    const metered = [...metrics.byType.values()].reduce((sum, u) => sum + total(u), 0);
    const counted = requests(workerTally, ['SQS.ReceiveMessage', 'SQS.DeleteMessageBatch']);
    expect(counted).toBeGreaterThan(0);
    expect(Math.abs(metered - counted)).toBeLessThanOrEqual(0.02 * counted);
    expect(metrics.byType.get('mail')?.tasks).toBe(10);
    expect(metrics.byType.get('report')?.tasks).toBe(25);
    expect(metrics.byType.get('report')?.writeUnits).toBeGreaterThan(0);
  });
});
