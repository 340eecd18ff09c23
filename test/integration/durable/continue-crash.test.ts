import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { DurableWrites } from '../../../src/store/durable-writes.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';

useDurableExecutor();

describe('a continuation whose worker dies after the continue write', () => {
  it('runs the next slice from the kept message, before the key’s next task', async () => {
    const order: string[] = [];
    const task = defineTask('durable.continue.crash', {
      schema: z.object({ name: z.string() }),
      handler: async ({ name }, ctx) => {
        order.push(`${name}:${ctx.checkpoint === undefined ? 0 : 1}`);
        if (ctx.checkpoint !== undefined) return name;
        await ctx.saveCheckpoint(1);
        return ctx.continue();
      },
    });
    const client = executor.client();
    const first = await client.enqueue(task, { name: 'a' }, { orderingKey: 'crash-key' });
    const second = await client.enqueue(task, { name: 'b' }, { orderingKey: 'crash-key' });
    // A worker receives the key's head, runs its first slice and writes the continuation,
    // then dies before it changes the message's visibility.
    const [message] = await executor.receive({ visibilityTimeout: 3 });
    const target = { id: first.id, type: task.type, attempt: 0 };
    const { lease } = await executor.store.claim(target, { workerId: 'doomed', leaseMs: 60_000 });
    order.push('a:0');
    await executor.store
      .feature(DurableWrites)
      .saveCheckpoint(lease, Date.now() + 60_000, { json: '1' });
    await executor.store.feature(DurableWrites).continueRun(lease, 0, 10);

    runWorker(task);
    const a = await client.wait(first.id, { timeoutMs: 60_000 });
    const b = await client.wait(second.id, { timeoutMs: 60_000 });

    expect(message?.body).toContain(first.id);
    expect(a.status).toBe(TaskStatus.SUCCEEDED);
    expect(b.status).toBe(TaskStatus.SUCCEEDED);
    expect(order).toEqual(['a:0', 'a:1', 'b:0', 'b:1']);
    expect(a.attempt).toBe(1);
    expect(a.history.filter((h) => h.event === AuditEvent.CONTINUED)).toHaveLength(1);
  });
});
