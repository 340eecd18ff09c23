import { describe, expect, it } from 'vitest';
import { importTask, type Warehouse } from '../../../examples/durable-tasks.js';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';

useDurableExecutor();

describe('the durable-tasks guide example', () => {
  it('imports in slices: every row once, one job, one announcement', async () => {
    const imported: number[] = [];
    const calls = { createJob: 0, announce: 0 };
    const warehouse: Warehouse = {
      createJob: async () => `job-${++calls.createJob}`,
      importRows: async (_job, from, to) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        for (let row = from; row < to; row++) imported.push(row);
      },
      announce: async () => {
        calls.announce += 1;
      },
    };
    // 4 s slices, handing over with 3 s left (a margin for a loaded machine): a few 150 ms
    // batches per slice.
    const task = importTask(warehouse, { sliceMs: 4000, batchRows: 10, handOverMs: 3000 });
    runWorker(task);
    const client = executor.client();

    const { id } = await client.enqueue(task, { file: 'customers.csv', rows: 200 });
    const record = await client.wait(id, { timeoutMs: 120_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ job: 'job-1', rows: 200 });
    expect(imported).toEqual(Array.from({ length: 200 }, (_, n) => n));
    expect(calls).toEqual({ createJob: 1, announce: 1 });
    expect(record.attempt).toBe(1);
    expect(record.continuations).toBeGreaterThanOrEqual(2);
    expect(record.history.filter((h) => h.event === AuditEvent.CONTINUED)).toHaveLength(
      record.continuations ?? 0,
    );
  });
});
