/**
 * Lanes on a local executor: each lane has its own poller with its own concurrency, so a
 * lane full of slow work does not hold up another lane's tasks.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { type LocalExecutor, startLocalExecutor } from '../../src/local/local-executor.js';
import { defineTask } from '../../src/tasks/task-definition.js';

const BULK_TASK_MS = 2_000;
const schema = z.object({ n: z.number() });
const slowBulk = defineTask('slow-bulk', {
  schema,
  lane: 'bulk',
  timeout: 20_000,
  handler: async ({ n }) => {
    await new Promise((resolve) => setTimeout(resolve, BULK_TASK_MS));
    return n;
  },
});
const urgent = defineTask('urgent-ping', { schema, lane: 'urgent', handler: ({ n }) => n });

let running: LocalExecutor | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('startLocalExecutor({ lanes })', () => {
  it('provisions a queue per lane and runs each lane’s tasks; a busy bulk lane does not delay the urgent lane', async () => {
    running = await startLocalExecutor({
      tasks: [slowBulk, urgent],
      name: 'local-lanes',
      log: 'silent',
      stateDir: await mkdtemp(path.join(tmpdir(), 'tasklane-lanes-')),
      lanes: { bulk: { maxConcurrency: 2, batchSize: 1 }, urgent: { maxConcurrency: 4 } },
    });
    const { client } = running;
    // 8 slow tasks through 2 pollers of 1 message: at least 4 rounds of 2 s.
    const bulkIds = await Promise.all(
      Array.from({ length: 8 }, async (_, n) => (await client.enqueue(slowBulk, { n })).id),
    );

    const started = Date.now();
    const ping = await client.enqueue(urgent, { n: 99 });
    const done = await client.wait(ping.id, { timeoutMs: 30_000 });
    const urgentMs = Date.now() - started;
    const bulkWhenUrgentDone = await Promise.all(bulkIds.map((id) => client.get(id)));
    const bulkDone = await Promise.all(bulkIds.map((id) => client.wait(id, { timeoutMs: 60_000 })));

    expect(Object.keys(running.location.lanes ?? {}).sort()).toEqual(['bulk', 'default', 'urgent']);
    expect(running.location.lanes?.bulk?.queueUrl).toMatch(/local-lanes-bulk-work\.fifo$/);
    expect(done.status).toBe(TaskStatus.SUCCEEDED);
    expect(done.lane).toBe('urgent');
    // The urgent task did not wait for the bulk backlog (about 8 s on 2 pollers).
    const bulkSucceededFirst = bulkWhenUrgentDone.filter((r) => r?.status === TaskStatus.SUCCEEDED);
    expect(bulkSucceededFirst.length).toBeLessThan(bulkIds.length);
    expect(urgentMs).toBeLessThan(4 * BULK_TASK_MS);
    expect(bulkDone.map((r) => r.status)).toEqual(bulkIds.map(() => TaskStatus.SUCCEEDED));
    expect(bulkDone.every((r) => r.lane === 'bulk')).toBe(true);
  });
});
