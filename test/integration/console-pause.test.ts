/**
 * The console's pause and resume (issue 26): of a task from its page, and of an ordering key,
 * each through the confirmation page, over HTTP against a running console on the emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type RunningConsole, startConsole } from '../../packages/cli/src/console/index.js';
import type { TaskClient } from '../../src/client/task-client.js';
import { TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { reportTask } from '../helpers/console.js';
import { csrfIn, hiddenValues } from '../helpers/console-app.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let client: TaskClient;
let running: RunningConsole;

/** A task that waits for an approval, with no timeout: it stays SUSPENDED until signalled. */
const approvalTask = defineTask('console.await-approval', {
  schema: z.object({}),
  handler: async (_payload, ctx) => {
    const approval = await ctx.waitForSignal('approved', { schema: z.object({ by: z.string() }) });
    return { approved: approval.received };
  },
});

beforeAll(async () => {
  executor = await setupExecutor();
  client = executor.client();
  running = await startConsole({ client, port: 0, auth: false });
});

afterAll(async () => {
  await running.close();
});

/** A GET as the console's own pages make it (same origin). */
async function get(path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(new URL(path, running.url), {
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  return { status: res.status, body: await res.text() };
}

/**
 * Confirms an action the way the confirmation page's form does: posts its hidden fields and
 * its CSRF token to its form's address.
 */
async function confirm(page: string): Promise<{ status: number; body: string }> {
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
  if (action === undefined) throw new Error('the page has no action form');
  const form = new URLSearchParams({ _csrf: csrfIn(page) ?? '' });
  for (const name of ['id', 'key']) {
    for (const value of hiddenValues(page, name)) form.append(name, value);
  }
  const res = await fetch(new URL(action, running.url), {
    method: 'POST',
    body: form,
    headers: { 'sec-fetch-site': 'same-origin', origin: new URL(running.url).origin },
  });
  return { status: res.status, body: await res.text() };
}

/** The text of a page with its tags removed, for asserting on sentences. */
function text(body: string): string {
  return body
    .replace(/<[^>]+>/g, '')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&quot;/g, '"');
}

describe('console pause and resume of a task', () => {
  it('pauses a PENDING task from its page after the confirmation, then resumes it where it was', async () => {
    // Arrange
    await client.enqueue(reportTask, { month: '2026-03' }, { id: 'to-pause' });
    const before = await get('/tasks/to-pause');

    // Act
    const pauseConfirm = await get('/confirm?action=pause-task&id=to-pause');
    const paused = await confirm(pauseConfirm.body);
    const pausedPage = await get('/tasks/to-pause');
    const pausedRecord = await client.get('to-pause');
    const pausedList = await get('/tasks?status=PAUSED');
    const overview = await get('/');
    const resumeConfirm = await get('/confirm?action=resume-task&id=to-pause');
    const resumed = await confirm(resumeConfirm.body);

    // Assert
    expect(before.body).toContain('href="/confirm?action=pause-task&amp;id=to-pause"');
    expect(text(pauseConfirm.body)).toContain('Pause 1 task(s)');
    expect(paused.status).toBe(200);
    expect(text(paused.body)).toContain('Paused 1 of 1 tasks');
    expect(text(paused.body)).toContain('to-pause: paused (it resumes to PENDING)');
    expect(pausedRecord).toMatchObject({
      status: TaskStatus.PAUSED,
      pausedFrom: TaskStatus.PENDING,
    });
    expect(text(pausedPage.body)).toContain('Pausedresumes to PENDING');
    expect(pausedPage.body).toContain('href="/confirm?action=resume-task&amp;id=to-pause"');
    expect(pausedPage.body).not.toContain('action=pause-task');
    expect(pausedList.body).toContain('aria-label="Select to-pause"');
    expect(pausedList.body).toContain('value="resume-task">Resume selected…');
    expect(pausedList.body).toContain('<option value="SUSPENDED">SUSPENDED</option>');
    expect(overview.body).toMatch(
      /<a href="\/tasks\?status=PAUSED"><span class="n">[1-9]\d*<\/span><span class="status status-paused">PAUSED<\/span>/,
    );
    expect(resumed.status).toBe(200);
    expect(text(resumed.body)).toContain('to-pause: resumed, now PENDING');
    expect((await client.get('to-pause'))?.status).toBe(TaskStatus.PENDING);
  });

  it('says why a pause was refused when the task was cancelled after the confirmation page', async () => {
    // Arrange
    await client.enqueue(reportTask, { month: '2026-04' }, { id: 'gone-meanwhile' });
    const page = await get('/confirm?action=pause-task&id=gone-meanwhile');
    await client.cancel('gone-meanwhile', 'by someone else');

    // Act
    const refused = await confirm(page.body);

    // Assert
    expect(refused.status).toBe(409);
    expect(text(refused.body)).toContain('Paused 0 of 1 tasks');
    expect(text(refused.body)).toContain(
      'gone-meanwhile: not paused, the task has finished: it is CANCELLED',
    );
    expect((await client.get('gone-meanwhile'))?.status).toBe(TaskStatus.CANCELLED);
  });

  it('refuses a resume of a task that is not paused, and says its status', async () => {
    // Arrange
    await client.enqueue(reportTask, { month: '2026-05' }, { id: 'never-paused' });

    // Act
    const refused = await confirm((await get('/confirm?action=resume-task&id=never-paused')).body);

    // Assert
    expect(refused.status).toBe(409);
    expect(text(refused.body)).toContain(
      'never-paused: not resumed, the task is PENDING, not PAUSED, and no pause was requested',
    );
  });

  it('refuses a pause posted without the CSRF token, or from another site, and leaves the task', async () => {
    // Arrange
    await client.enqueue(reportTask, { month: '2026-06' }, { id: 'not-by-forgery' });
    const post = (headers: Record<string, string>, fields: Record<string, string>) =>
      fetch(new URL('/actions/pause-task', running.url), {
        method: 'POST',
        body: new URLSearchParams(fields),
        headers,
      });
    const token = csrfIn((await get('/confirm?action=pause-task&id=not-by-forgery')).body) ?? '';

    // Act
    const noToken = await post({ 'sec-fetch-site': 'same-origin' }, { id: 'not-by-forgery' });
    const crossSite = await post(
      { 'sec-fetch-site': 'cross-site' },
      { id: 'not-by-forgery', _csrf: token },
    );
    const openedFromOutside = await fetch(
      new URL('/confirm?action=pause-task&id=not-by-forgery', running.url),
      { headers: { 'sec-fetch-site': 'cross-site' } },
    );

    // Assert
    expect(noToken.status).toBe(403);
    expect(await noToken.text()).toContain('no valid CSRF token');
    expect(crossSite.status).toBe(403);
    expect(openedFromOutside.status).toBe(403);
    expect(await openedFromOutside.text()).not.toContain('<form method="post"');
    expect((await client.get('not-by-forgery'))?.status).toBe(TaskStatus.PENDING);
  });

  it('shows what a SUSPENDED task waits for, pauses it, and resumes it still waiting', async () => {
    // Arrange
    const { id } = await client.enqueue(approvalTask, {});
    await executor.drain(executor.worker([approvalTask]));
    const waiting = await get(`/tasks/${id}`);

    // Act
    const paused = await confirm((await get(`/confirm?action=pause-task&id=${id}`)).body);
    const pausedPage = await get(`/tasks/${id}`);
    const resumed = await confirm((await get(`/confirm?action=resume-task&id=${id}`)).body);

    // Assert
    expect((await client.get(id))?.status).toBe(TaskStatus.SUSPENDED);
    expect(text(waiting.body)).toContain('Waiting for signalapproved, no timeout');
    expect(waiting.body).toContain(`href="/confirm?action=pause-task&amp;id=${id}"`);
    expect(paused.status).toBe(200);
    expect(text(pausedPage.body)).toContain('Pausedresumes to SUSPENDED');
    expect(text(pausedPage.body)).toContain('Waiting for signalapproved');
    expect(text(resumed.body)).toContain(`${id}: resumed, now SUSPENDED`);
  });
});

describe('console pause and resume of an ordering key', () => {
  it('pauses and resumes every task of a key from its list, task by task, then finds nothing to resume', async () => {
    // Arrange
    const key = 'account-42';
    await client.enqueue(reportTask, { month: '2026-07' }, { id: 'key-first', orderingKey: key });
    await client.enqueue(reportTask, { month: '2026-08' }, { id: 'key-second', orderingKey: key });
    const list = await get(`/tasks?key=${encodeURIComponent(key)}`);

    // Act
    const pauseConfirm = await get(`/confirm?action=pause-key&key=${encodeURIComponent(key)}`);
    const paused = await confirm(pauseConfirm.body);
    const statusesPaused = [
      (await client.get('key-first'))?.status,
      (await client.get('key-second'))?.status,
    ];
    const resumeKeyForm = (await get(`/confirm?action=resume-key&key=${encodeURIComponent(key)}`))
      .body;
    const resumed = await confirm(resumeKeyForm);
    const nothingLeft = await get(`/confirm?action=resume-key&key=${encodeURIComponent(key)}`);
    const postedAnyway = await confirm(resumeKeyForm);

    // Assert
    expect(list.body).toContain('href="/confirm?action=pause-key&amp;key=account-42"');
    expect(text(pauseConfirm.body)).toContain('Pause the ordering key "account-42"');
    expect(hiddenValues(pauseConfirm.body, 'key')).toEqual([key]);
    expect(paused.status).toBe(200);
    expect(text(paused.body)).toContain('Paused 2 of 2 tasks of key account-42');
    expect(text(paused.body)).toContain('key-first: paused');
    expect(text(paused.body)).toContain('key-second: paused');
    expect(statusesPaused).toEqual([TaskStatus.PAUSED, TaskStatus.PAUSED]);
    expect(text(resumed.body)).toContain('Resumed 2 of 2 tasks of key account-42');
    expect((await client.get('key-first'))?.status).toBe(TaskStatus.PENDING);
    expect((await client.get('key-second'))?.status).toBe(TaskStatus.PENDING);
    expect(text(pauseConfirm.body)).toContain("The key's tasks it reaches now");
    expect(text(pauseConfirm.body)).toMatch(/key-first\s*PENDING/);
    expect(text(pauseConfirm.body)).toMatch(/key-second\s*PENDING/);
    expect(text(resumeKeyForm)).toMatch(/key-first\s*PAUSED/);
    expect(text(nothingLeft.body)).toContain(
      'The ordering key "account-42" has no PAUSED task: nothing would be resumed.',
    );
    expect(nothingLeft.body).not.toContain('<form method="post"');
    expect(postedAnyway.status).toBe(409);
    expect(text(postedAnyway.body)).toContain('The key "account-42" has no PAUSED task.');
  });

  it('refuses a key action without a key, naming the field', async () => {
    // Act
    const res = await get('/confirm?action=pause-key');

    // Assert
    expect(res.status).toBe(400);
    expect(text(res.body)).toContain('name the ordering key (field "key"); none was given');
  });
});
