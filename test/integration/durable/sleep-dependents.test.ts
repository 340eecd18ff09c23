import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../../src/core/constants.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';
import { eventually } from '../../helpers/executor.js';

useDurableExecutor();

describe('a sleeping parent', () => {
  it('takes dependents while it sleeps, and releases them when it finishes', async () => {
    const order: string[] = [];
    const parent = defineTask('durable.sleep.parent', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.sleep('nap', 2_000);
        order.push('parent');
        return 'parent done';
      },
    });
    const child = defineTask('durable.sleep.child', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        order.push('child');
        return (await ctx.parents()).map((p) => p.result);
      },
    });
    runWorker([parent, child]);
    const client = executor.client();

    const { id } = await client.enqueue(parent, {});
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUSPENDED);
    const dependent = await client.enqueue(child, {}, { dependsOn: [id] });
    const waiting = await client.get(dependent.id);
    const record = await client.wait(dependent.id, { timeoutMs: 30_000 });

    expect(waiting?.status).toBe(TaskStatus.WAITING);
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual(['parent done']);
    expect(order).toEqual(['parent', 'child']);
  });
});
