/**
 * The console's pause and resume of a whole lane (issue 26): from the overview's lane table,
 * through the confirmation page, over HTTP against a running console on the emulator, with
 * the same CSRF token, cross-site refusal and read-only refusal as every other action.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../../packages/cli/src/console/index.js';
import type { TaskClient } from '../../src/client/task-client.js';
import { browse, consoleApp, csrfIn, hiddenValues, postForm } from '../helpers/console-app.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let client: TaskClient;
let running: RunningConsole;

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

/** Confirms the way the confirmation page's form does, with `extra` fields typed in. */
async function confirm(
  page: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
  if (action === undefined) throw new Error('the page has no action form');
  const form = new URLSearchParams({ _csrf: csrfIn(page) ?? '', ...extra });
  for (const value of hiddenValues(page, 'lane')) form.append('lane', value);
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
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');
}

describe('console pause and resume of a lane', () => {
  it('pauses the lane from the overview after the confirmation, shows it paused, then resumes it', async () => {
    // Arrange
    const before = await get('/');

    // Act
    const pauseConfirm = await get('/confirm?action=pause-lane&lane=default');
    const paused = await confirm(pauseConfirm.body, { reason: 'deploy of the billing service' });
    const [pausedState] = await client.laneStates(['default']);
    const overview = await get('/');
    const againConfirm = await get('/confirm?action=pause-lane&lane=default');
    const again = await confirm(againConfirm.body);
    const [stillPaused] = await client.laneStates(['default']);
    const resumeConfirm = await get('/confirm?action=resume-lane&lane=default');
    const resumed = await confirm(resumeConfirm.body);
    const [resumedState] = await client.laneStates(['default']);
    const resumedAgain = await confirm(resumeConfirm.body);
    const after = await get('/');

    // Assert
    expect(before.body).toContain('href="/confirm?action=pause-lane&amp;lane=default"');
    expect(text(before.body)).toMatch(/default\s*RUNNING/);
    expect(text(pauseConfirm.body)).toContain(
      'Pause the lane "default": nothing new is received from its queue until it is resumed.',
    );
    expect(text(pauseConfirm.body)).toContain('within its period');
    expect(text(pauseConfirm.body)).toContain(
      'The lane "default" is running: it has never been paused.',
    );
    expect(hiddenValues(pauseConfirm.body, 'lane')).toEqual(['default']);
    expect(pauseConfirm.body).toContain('name="reason"');
    expect(paused.status).toBe(200);
    expect(text(paused.body)).toContain('Paused lane default');
    expect(text(paused.body)).toContain(
      'The pause is recorded only: no Lambda event source mapping polls the lane’s queue',
    );
    expect(pausedState).toMatchObject({
      lane: 'default',
      paused: true,
      reason: 'deploy of the billing service',
      principal: expect.any(String),
      changedAt: expect.any(Number),
    });
    expect(text(overview.body)).toMatch(/default\s*PAUSED.+deploy of the billing service/);
    expect(overview.body).toContain(pausedState?.principal ?? 'no principal');
    expect(overview.body).toContain('href="/confirm?action=resume-lane&amp;lane=default"');
    expect(text(againConfirm.body)).toContain('The lane "default" has been paused since ');
    expect(text(againConfirm.body)).toContain('Confirming changes nothing: it stays paused.');
    expect(again.status).toBe(200);
    expect(text(again.body)).toContain('Lane default was already paused');
    expect(text(again.body)).toContain('Nothing was written.');
    expect(stillPaused).toEqual(pausedState);
    expect(text(resumeConfirm.body)).toContain('Resume the lane "default"');
    expect(text(resumeConfirm.body)).toContain(': deploy of the billing service');
    expect(resumed.status).toBe(200);
    expect(text(resumed.body)).toContain('Resumed lane default');
    expect(resumedState).toMatchObject({ lane: 'default', paused: false });
    expect(text(resumedAgain.body)).toContain('Lane default was already running');
    expect(after.body).toContain('href="/confirm?action=pause-lane&amp;lane=default"');
  });

  it('refuses an unknown lane on the confirmation page and when posted, naming the lanes', async () => {
    // Act
    const page = await get('/confirm?action=pause-lane&lane=nope');
    const token = csrfIn((await get('/confirm?action=pause-lane&lane=default')).body) ?? '';
    const posted = await fetch(new URL('/actions/pause-lane', running.url), {
      method: 'POST',
      body: new URLSearchParams({ _csrf: token, lane: 'nope' }),
      headers: { 'sec-fetch-site': 'same-origin', origin: new URL(running.url).origin },
    });
    const noLane = await get('/confirm?action=resume-lane');

    // Assert
    expect(page.status).toBe(404);
    expect(text(page.body)).toContain(`no lane is named "nope": the executor's lanes are default`);
    expect(page.body).not.toContain('<form method="post"');
    expect(posted.status).toBe(409);
    expect(text(await posted.text())).toContain('No lane is named "nope"');
    expect(noLane.status).toBe(400);
    expect(text(noLane.body)).toContain('name the lane (field "lane"); none was given');
  });

  it('refuses a lane pause without the CSRF token, from another site, or read-only, and leaves the lane running', async () => {
    // Arrange
    const post = (headers: Record<string, string>, fields: Record<string, string>) =>
      fetch(new URL('/actions/pause-lane', running.url), {
        method: 'POST',
        body: new URLSearchParams(fields),
        headers,
      });
    const token = csrfIn((await get('/confirm?action=pause-lane&lane=default')).body) ?? '';
    const readOnly = consoleApp(client, { readOnly: true });

    // Act
    const noToken = await post({ 'sec-fetch-site': 'same-origin' }, { lane: 'default' });
    const crossSite = await post(
      { 'sec-fetch-site': 'cross-site' },
      { lane: 'default', _csrf: token },
    );
    const readOnlyOverview = await browse(readOnly, '/', { site: 'same-origin' });
    const readOnlyConfirm = await browse(readOnly, '/confirm?action=pause-lane&lane=default', {
      site: 'same-origin',
    });
    const readOnlyPost = await postForm(
      readOnly,
      '/actions/pause-lane',
      { lane: 'default', _csrf: token },
      { site: 'same-origin', origin: 'http://localhost' },
    );

    // Assert
    expect(noToken.status).toBe(403);
    expect(await noToken.text()).toContain('no valid CSRF token');
    expect(crossSite.status).toBe(403);
    const readOnlyBody = await readOnlyOverview.text();
    expect(text(readOnlyBody)).toMatch(/default\s*RUNNING/);
    expect(readOnlyBody).not.toContain('action=pause-lane');
    expect(readOnlyConfirm.status).toBe(403);
    expect(readOnlyPost.status).toBe(403);
    expect((await client.laneStates(['default']))[0]?.paused).toBe(false);
  });
});
