/**
 * The times a 'last' fold writes (docs/adr/0033-debounce-fences.md): the window's end and
 * the status index's time move together, in the fold's one write, and never earlier than
 * the stored window end, whatever the folding producer's clock says.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TableSchema, TaskStatus } from '../../src/core/constants.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, silentLogger, type TestExecutor } from '../helpers/executor.js';
import { rawItem } from '../helpers/raw-item.js';

const render = defineTask('debounce-times.render', {
  schema: z.object({ n: z.number() }),
  handler: () => undefined,
});

let executor: TestExecutor;
let keys = 0;
const nextKey = () => `times-${++keys}`;

beforeAll(async () => {
  executor = await setupExecutor();
});

/** A client of the executor whose clock runs `offsetMs` from the real one, scheduling every delay. */
const clientAt = (offsetMs: number) =>
  executor.client({ scheduleThresholdMs: 0, clock: () => Date.now() + offsetMs });

/** One sweep of the executor's table at `now`. */
function sweepAt(now: number) {
  return createSweeper({
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    queueArn: executor.queueArn,
    scheduleGroup: executor.scheduler.scheduleGroup,
    schedulerRoleArn: executor.scheduler.schedulerRoleArn,
    scheduleDeadLetterArn: executor.scheduler.scheduleDeadLetterArn,
    ...executor.clients,
    logger: silentLogger,
    metrics: noopMetrics,
    clock: () => now,
  }).run();
}

describe("TaskClient.enqueue with debounce 'last', the times a fold writes", () => {
  it('moves the status index time with runAt, so the sweeper leaves the postponed task alone', async () => {
    const debounce = { key: nextKey(), windowMs: 120_000, mode: 'last' } as const;
    const first = await clientAt(0).enqueue(render, { n: 1 }, { debounce });
    const folded = await clientAt(300_000).enqueue(render, { n: 2 }, { debounce });
    const firstEnd = first.record.runAt as number;

    // Past the first window's end and the sweeper's grace, before the folded one's end.
    const report = await sweepAt(firstEnd + 140_000);

    expect(first.record.status).toBe(TaskStatus.SCHEDULED);
    expect(folded).toMatchObject({ id: first.id, absorbed: true });
    const item = await rawItem(executor, first.id);
    expect(item.runAt).toBe(folded.record.runAt);
    expect(item[TableSchema.STATUS_INDEX_SORT_KEY]).toBe(folded.record.runAt);
    expect(item.runAt).toBeGreaterThan(firstEnd + 250_000);
    expect(report.scheduledChecked).toBe(0);
  });

  it('keeps the stored runAt when the folding producer’s clock lags, and still takes its payload', async () => {
    const debounce = { key: nextKey(), windowMs: 120_000, mode: 'last' } as const;
    const first = await clientAt(0).enqueue(render, { n: 1 }, { debounce });

    const lagging = await clientAt(-30_000).enqueue(render, { n: 2 }, { debounce });

    const record = await executor.client().get(first.id);
    expect(lagging).toMatchObject({ id: first.id, created: false, absorbed: true });
    expect(record).toMatchObject({
      status: TaskStatus.SCHEDULED,
      payload: { n: 2 },
      runAt: first.record.runAt,
      debounce: { absorbed: 1 },
    });
    const item = await rawItem(executor, first.id);
    expect(item[TableSchema.STATUS_INDEX_SORT_KEY]).toBe(first.record.runAt);
  });
});
