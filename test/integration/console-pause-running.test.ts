/**
 * The console's pause of a RUNNING task (issue 26): a request, said so on the outcome page,
 * that the run honours at its next heartbeat; then the console's resume lets it finish.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type RunningConsole, startConsole } from '../../packages/cli/src/console/index.js';
import { TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { csrfIn, hiddenValues } from '../helpers/console-app.js';
import { executor, runWorker, useDurableExecutor } from '../helpers/durable.js';
import { eventually } from '../helpers/executor.js';

useDurableExecutor();

let running: RunningConsole;

beforeAll(async () => {
  running = await startConsole({ client: executor.client(), port: 0, auth: false });
});

afterAll(async () => {
  await running.close();
});

async function get(path: string): Promise<string> {
  const res = await fetch(new URL(path, running.url), {
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  return res.text();
}

/** Posts a confirmation page's form, as its Confirm button does. */
async function confirm(page: string): Promise<{ status: number; body: string }> {
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1] ?? '';
  const form = new URLSearchParams({ _csrf: csrfIn(page) ?? '' });
  for (const id of hiddenValues(page, 'id')) form.append('id', id);
  const res = await fetch(new URL(action, running.url), {
    method: 'POST',
    body: form,
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  return { status: res.status, body: (await res.text()).replace(/<[^>]+>/g, '') };
}

describe('console pause of a RUNNING task', () => {
  it('asks the run to pause, says so, and the console resumes it once PAUSED', async () => {
    // Arrange
    const effects: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const task = defineTask('console.pause.running', {
      schema: z.object({}),
      handler: async (_payload, ctx) => {
        await ctx.step('first', () => effects.push('first'));
        await gate;
        await ctx.heartbeat();
        await ctx.step('second', () => effects.push('second'));
        return 'done';
      },
    });
    runWorker(task);
    const client = executor.client();
    const { id } = await client.enqueue(task, {});
    await eventually(async () => effects.length === 1);

    // Act
    const runningPage = await get(`/tasks/${id}`);
    const requested = await confirm(await get(`/confirm?action=pause-task&id=${id}`));
    const requestedPage = await get(`/tasks/${id}`);
    release();
    await eventually(async () => (await client.get(id))?.status === TaskStatus.PAUSED);
    const resumed = await confirm(await get(`/confirm?action=resume-task&id=${id}`));
    const record = await client.wait(id, { timeoutMs: 30_000 });

    // Assert
    expect(runningPage).toContain('Ask this task to pause…');
    expect(requested.status).toBe(200);
    expect(requested.body).toContain(
      `${id}: pause requested: it is RUNNING, and its run ends PAUSED at its next step, checkpoint or heartbeat`,
    );
    expect(requestedPage).toContain('Take back the pause request…');
    expect(resumed.body).toContain('Resumed 1 of 1 tasks');
    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(effects).toEqual(['first', 'second']);
  });
});
