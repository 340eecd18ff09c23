import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { newIntegrityKey, type TestIntegrity } from '../helpers/integrity.js';

let executor: TestExecutor;
let integrity: TestIntegrity;
const runs: { rev: number; maxAttempts: number }[] = [];

// One task type in two releases of the producer, as during a rolling deploy.
const schema = z.object({ doc: z.string(), rev: z.number() });
const handler = ({ rev }: { rev: number }, ctx: { maxAttempts: number }) => {
  runs.push({ rev, maxAttempts: ctx.maxAttempts });
};
const release1 = defineTask('reindex', { schema, retry: { maxAttempts: 3 }, handler });
const release2 = defineTask('reindex', {
  schema,
  retry: { maxAttempts: 5 },
  timeout: 20_000,
  handler,
});

beforeAll(async () => {
  executor = await setupExecutor();
  integrity = await newIntegrityKey(executor, 'debounce fold test');
});

describe("integrity tag: a 'last' debounce fold", () => {
  it('runs the payload a producer of another release folded, with the fields it tagged', async () => {
    const debounce = { key: 'doc-1', windowMs: 1_000, mode: 'last' as const };
    const first = await executor
      .client({ integrity })
      .enqueue(release1, { doc: 'doc-1', rev: 1 }, { debounce });

    const folded = await executor
      .client({ integrity })
      .enqueue(release2, { doc: 'doc-1', rev: 2 }, { debounce });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const worker = executor.worker([release2], { integrity });
    for (let round = 0; round < 4 && runs.length === 0; round++) {
      await executor.drain(worker);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }

    const record = await executor.store.get(first.id);
    expect(folded.id).toBe(first.id);
    expect(record?.status).toBe(TaskStatus.SUCCEEDED);
    expect(record).toMatchObject({ maxAttempts: 5, timeoutMs: 20_000 });
    expect(runs).toEqual([{ rev: 2, maxAttempts: 5 }]);
  });

  it('starts a new task for a fold with another ordering key, leaving the waiting one as tagged', async () => {
    const client = executor.client({ integrity });
    const debounce = { key: 'doc-2', windowMs: 60_000, mode: 'last' as const };
    const first = await client.enqueue(
      release1,
      { doc: 'doc-2', rev: 1 },
      { debounce, orderingKey: 'a' },
    );

    const other = await client.enqueue(
      release1,
      { doc: 'doc-2', rev: 2 },
      { debounce, orderingKey: 'b' },
    );

    expect(other.id).not.toBe(first.id);
    expect(await executor.store.get(first.id)).toMatchObject({
      orderingKey: 'a',
      payload: { doc: 'doc-2', rev: 1 },
    });
    expect(await executor.store.get(other.id)).toMatchObject({ orderingKey: 'b' });
  });
});
