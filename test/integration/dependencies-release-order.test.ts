/** Dependents of one parent that share an ordering key start in the order they were enqueued. */
import { beforeAll, describe, expect, it } from 'vitest';
import { dependencyTasks, newRuns } from '../helpers/dependencies.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
});

describe('releaseDependents: order of the sends', () => {
  it('sends the dependents of one key in enqueue order, not in the order of the parent set', async () => {
    const runs = newRuns();
    const { step, all } = dependencyTasks(runs);
    const client = executor.client();
    await client.enqueue(step, { name: 'parent' }, { id: 'order-parent' });
    // Ids that sort against their enqueue order, as a string set would list them.
    for (const [id, name] of [
      ['order-z', 'first'],
      ['order-m', 'second'],
      ['order-a', 'third'],
    ] as const) {
      await client.enqueue(step, { name }, { id, orderingKey: 'K', dependsOn: ['order-parent'] });
    }

    for (let round = 0; round < 4; round++) await executor.drain(executor.worker(all));

    expect(runs.order).toEqual(['parent', 'first', 'second', 'third']);
  });
});
