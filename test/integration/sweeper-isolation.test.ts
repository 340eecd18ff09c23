/** One item the sweeper cannot repair never stops a sweep, nor the sends of other tasks. */
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { recordingLogger, setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { throttledSqs } from '../helpers/failing-commands.js';
import { putRawItem, rawItem } from '../helpers/raw-item.js';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

const noop = defineTask('noop', { schema: z.object({ n: z.number() }), handler: ({ n }) => n });

/**
 * A RUNNING task whose lease has expired, with a history that is not a list: every write to
 * it is refused with a ValidationException, as for an item DynamoDB cannot update.
 */
async function poisonedRunningTask(): Promise<string> {
  const client = executor.client();
  const { id } = await client.enqueue(noop, { n: 0 }, { id: 'poisoned' });
  const seen = await executor.store.get(id);
  if (seen === undefined) throw new Error('expected the record');
  await executor.store.claim(seen, { workerId: 'crashed', leaseMs: 1 });
  const item = await rawItem(executor, id);
  await putRawItem(executor, { ...item, history: 'not a list' });
  return id;
}

describe('sweep', () => {
  it('skips, logs and counts a task it cannot repair, and still sends the other tasks', async () => {
    // Arrange: three tasks whose producer could not send them, and a poisoned running one.
    const poisoned = await poisonedRunningTask();
    const broken = executor.client({ sqs: throttledSqs() });
    const unsent = await Promise.all([1, 2, 3].map((n) => broken.enqueue(noop, { n })));
    const logger = recordingLogger();
    const sweeper = createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      logger,
      metrics: noopMetrics,
      pendingAgeMs: 0,
      // The poisoned task is RUNNING without a message: the running scan finds it
      // (docs/adr/0052-running-leaves-the-status-index.md).
      scanRunning: true,
      clock: () => Date.now() + 60_000,
    });

    // Act
    const report = await sweeper.run();

    // Assert
    expect(unsent.map((t) => t.sent)).toEqual([false, false, false]);
    expect(report).toMatchObject({ failed: 1, sent: 3, unsent: 0, requeued: 0, killed: 0 });
    const client = executor.client();
    for (const { id } of unsent) {
      expect((await client.get(id))?.status, id).toBe(TaskStatus.PENDING);
    }
    expect((await client.get(poisoned))?.status).toBe(TaskStatus.RUNNING);
    const errors = logger.lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.attributes).toMatchObject({
      taskId: poisoned,
      status: TaskStatus.RUNNING,
      error: expect.stringMatching(/ValidationException/),
    });
    expect(logger.lines.find((l) => l.message === 'sweep finished')?.attributes).toMatchObject({
      failed: 1,
      sent: 3,
    });
  });

  it('reports no failure when every task is repaired', async () => {
    const broken = executor.client({ sqs: throttledSqs() });
    await broken.enqueue(noop, { n: 1 });
    const sweeper = createSweeper({
      tableName: executor.tableName,
      queueUrl: executor.queueUrl,
      ...executor.clients,
      logger: recordingLogger(),
      metrics: noopMetrics,
      pendingAgeMs: 0,
    });

    const report = await sweeper.run();

    expect(report).toMatchObject({ failed: 0, sent: 1 });
  });
});
