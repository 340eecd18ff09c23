/**
 * The sweep's re-send of PENDING tasks, now that no write records a send
 * (docs/adr/0020-claim-without-pre-read.md): after a grace period, with a backoff per task.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, silentLogger, type TestExecutor } from '../helpers/executor.js';

const GRACE_MS = 60_000;
const noop = defineTask('noop', { schema: z.object({}), handler: () => 'done' });

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

function sweepAt(at: number) {
  return createSweeper({
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    ...executor.clients,
    logger: silentLogger,
    metrics: noopMetrics,
    pendingAgeMs: GRACE_MS,
    clock: () => at,
  }).run();
}

describe('sweep of PENDING tasks', () => {
  it('leaves a PENDING task alone within the grace period', async () => {
    const { id } = await executor.client().enqueue(noop, {});

    const report = await sweepAt(Date.now() + GRACE_MS / 2);

    expect(report.sent).toBe(0);
    expect(await executor.client().get(id)).toMatchObject({
      status: TaskStatus.PENDING,
      resends: 0,
    });
  });

  it('sends an old PENDING task again with a doubling backoff, and SQS absorbs the copy', async () => {
    // Arrange: a task sent at enqueue and still waiting (a backlog).
    const { id } = await executor.client().enqueue(noop, {});
    const t0 = Date.now();

    // Act: sweeps at growing distances.
    const first = await sweepAt(t0 + GRACE_MS + 1_000);
    const tooSoon = await sweepAt(t0 + 2 * GRACE_MS + 2_000);
    const second = await sweepAt(t0 + 3 * GRACE_MS + 2_000);
    const record = await executor.client().get(id);

    // Assert: re-sent after the grace, then after the grace plus a backoff of 1, then 2 graces.
    expect([first.sent, tooSoon.sent, second.sent]).toEqual([1, 0, 1]);
    expect(record).toMatchObject({ status: TaskStatus.PENDING, generation: 1, resends: 2 });
    expect(record?.history.map((h) => h.event)).toEqual(['submitted']);
    expect(await executor.queueDepth()).toBe(1);
  });

  it('runs the task once however often it was re-sent, and the claim clears the count', async () => {
    const { id } = await executor.client().enqueue(noop, {});
    await sweepAt(Date.now() + GRACE_MS + 1_000);

    const drained = await executor.drain(executor.worker([noop]));

    expect(drained.failed).toBe(0);
    expect(await executor.client().get(id)).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      attempt: 1,
      resends: 0,
    });
  });
});
