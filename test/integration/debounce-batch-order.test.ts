/**
 * Debounced entries of `enqueueBatch` among the other entries of their ordering key
 * (docs/adr/0033-debounce-fences.md): each is sent in batch order with the rest of its key,
 * so it neither overtakes the entries before it nor holds them back for its window.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { eventually, setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
/** The `step` of every run, in start order. */
const started: string[] = [];

const apply = defineTask('debounce-batch-order.apply', {
  schema: z.object({ step: z.string() }),
  handler: ({ step }) => void started.push(step),
});

beforeAll(async () => {
  executor = await setupExecutor();
});

describe('TaskClient.enqueueBatch with a debounced entry on an ordering key', () => {
  it('starts the entries of the key in batch order, the debounced one in its own place', async () => {
    const client = executor.client();
    const worker = executor.worker([apply]);
    const orderingKey = 'ledger-3';
    const debounce = { key: 'ledger-3-totals', windowMs: 500, mode: 'last' } as const;

    const results = await client.enqueueBatch([
      { task: apply, payload: { step: 'open' }, options: { orderingKey } },
      { task: apply, payload: { step: 'totals' }, options: { orderingKey, debounce } },
      { task: apply, payload: { step: 'close' }, options: { orderingKey } },
    ]);
    const ids = results.map((r) => (r.ok ? r.id : ''));
    await eventually(async () => {
      await executor.drain(worker);
      const records = await Promise.all(ids.map((id) => client.get(id)));
      return records.every((r) => r?.status === TaskStatus.SUCCEEDED);
    });

    expect(results.map((r) => r.ok && [r.created, r.sent, r.absorbed])).toEqual([
      [true, true, undefined],
      [true, true, false],
      [true, true, undefined],
    ]);
    expect(started).toEqual(['open', 'totals', 'close']);
  });

  it('folds a second entry of the debounce key into the first, sending nothing for it', async () => {
    const client = executor.client();
    const orderingKey = 'ledger-4';
    const debounce = { key: 'ledger-4-totals', windowMs: 60_000, mode: 'first' } as const;
    const before = await executor.queueDepth();

    const results = await client.enqueueBatch([
      { task: apply, payload: { step: 'totals 1' }, options: { orderingKey, debounce } },
      { task: apply, payload: { step: 'open' }, options: { orderingKey } },
      { task: apply, payload: { step: 'totals 2' }, options: { orderingKey, debounce } },
    ]);

    const [first, , second] = results;
    expect(first?.ok && second?.ok && second.id === first.id).toBe(true);
    expect(results.filter((r) => r.ok && r.absorbed === true)).toHaveLength(1);
    expect(await executor.queueDepth()).toBe(before + 2);
  });
});
