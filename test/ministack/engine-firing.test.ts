/**
 * MiniStack fires EventBridge Scheduler schedules itself, which moto never does: here the
 * local schedule pump is off, and what reaches the worker is what the engine delivered
 * (docs/emulator.md, "What only a firing engine shows").
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent, TaskStatus } from '../../src/core/constants.js';
import { type LocalExecutor, startLocalExecutor } from '../../src/local/local-executor.js';
import type { TaskLogger } from '../../src/observability/logger.js';
import { defineTask } from '../../src/tasks/task-definition.js';

const double = defineTask('double', {
  schema: z.object({ n: z.number() }),
  handler: ({ n }) => n * 2,
});

/** Every line the executor logged, with its attributes. */
const lines: { level: string; message: string; attributes: unknown }[] = [];
const recording: TaskLogger = {
  debug: (message, attributes) => lines.push({ level: 'debug', message, attributes }),
  info: (message, attributes) => lines.push({ level: 'info', message, attributes }),
  warn: (message, attributes) => lines.push({ level: 'warn', message, attributes }),
  error: (message, attributes) => lines.push({ level: 'error', message, attributes }),
};

let executor: LocalExecutor;

beforeAll(async () => {
  const shared = process.env.AWS_ENDPOINT_URL;
  delete process.env.AWS_ENDPOINT_URL;
  try {
    executor = await startLocalExecutor({
      tasks: [double],
      engine: 'ministack',
      scheduleFiring: 'engine',
      stateDir: await mkdtemp(path.join(tmpdir(), 'tasklane-ministack-')),
      log: recording,
      client: { scheduleThresholdMs: 500 },
    });
  } finally {
    if (shared !== undefined) process.env.AWS_ENDPOINT_URL = shared;
  }
});

afterAll(async () => {
  await executor?.stop();
});

describe('MiniStack 1.5.33 firing schedules itself (no local pump)', () => {
  it('runs a delayed task when the engine fires its one-time schedule, within its 10-second tick', async () => {
    const { client } = executor;

    const enqueued = await client.enqueue(double, { n: 4 }, { id: 'delayed', delay: 2_000 });
    const dueAt = enqueued.record.runAt ?? 0;
    const done = await client.wait('delayed', { timeoutMs: 40_000 });

    expect(enqueued.record.status).toBe(TaskStatus.SCHEDULED);
    expect([done.status, done.result]).toEqual([TaskStatus.SUCCEEDED, 8]);
    const claimedAt = done.history?.find((entry) => entry.event === AuditEvent.CLAIMED)?.at ?? 0;
    expect(claimedAt).toBeGreaterThanOrEqual(dueAt);
    expect(claimedAt - dueAt).toBeLessThan(15_000);
  });

  it('ministack: delivers a recurring firing with its <aws.scheduler.*> placeholders unsubstituted, so the worker refuses it and creates no task (pinned deviation)', async () => {
    const { client } = executor;

    await client.schedules.set('every-minute', {
      rate: 'rate(1 minute)',
      task: double,
      payload: { n: 1 },
    });
    const refusal = await waitFor(() =>
      lines.find((line) => JSON.stringify(line).includes('scheduledTime: invalid_format')),
    );
    const tasks = await client.list({ type: 'double' });

    // MiniStack sends the target's Input verbatim: `<aws.scheduler.scheduled-time>`,
    // `…execution-id>` and `…attempt-number>` stay as written, so the body is no firing.
    expect(refusal?.message).toBe('task.message-rejected');
    expect(JSON.stringify(refusal?.attributes)).toContain('body is not a Tasklane firing');
    expect(tasks.items.map((t) => t.id)).not.toContainEqual(
      expect.stringMatching(/^every-minute@/),
    );
  });
});

/** Polls `find` every second for up to 100 s (a rate(1 minute) first fires 60-70 s after creation). */
async function waitFor<T>(find: () => T | undefined): Promise<T | undefined> {
  const deadline = Date.now() + 100_000;
  while (Date.now() < deadline) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return undefined;
}
