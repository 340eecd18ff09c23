/**
 * The console in a real browser (Debian's Chromium, driven by playwright-core) against a
 * local executor with seeded tasks: the clicks an operator makes every day.
 */
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../../packages/cli/src/console/index.js';
import { TaskStatus } from '../../src/core/constants.js';
import { type EmulatorHandle, startEmulator } from '../../src/local/emulator.js';
import { type LocalExecutor, startLocalExecutor } from '../../src/local/local-executor.js';
import {
  fragileState,
  fragileTask,
  HOSTILE_NOTE,
  reportTask,
  SEEDED,
  seedTasks,
} from '../helpers/console.js';
import { eventually } from '../helpers/executor.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(import.meta.dirname, '__screenshots__');

let emulator: EmulatorHandle;
let executor: LocalExecutor;
let running: RunningConsole;
let browser: Browser;
let page: Page;
/** A page on another site (127.0.0.2) that opens the console path it is given. */
let attacker: Server;

/** The attacker's page that opens `path` of the console in a new window. */
function attackerPage(path: string): string {
  const { port } = attacker.address() as AddressInfo;
  return `http://127.0.0.2:${port}/${encodeURIComponent(path)}`;
}

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  fragileState.healthy = false;
  // Its own emulator: the integration project resets the shared one between its files.
  emulator = await startEmulator({ log: path.join(SHOTS, 'moto.log') });
  executor = await startLocalExecutor({
    tasks: [reportTask, fragileTask],
    endpoint: emulator.endpoint,
    log: 'silent',
  });
  const { client } = executor;
  await seedTasks(client);
  await client.schedules.set('nightly-report', {
    task: reportTask,
    payload: { month: 'current' },
    cron: '0 2 * * ? *',
  });
  await eventually(async () => (await client.get(SEEDED.dead))?.status === TaskStatus.DEAD);
  for (const id of SEEDED.reports) {
    await eventually(async () => (await client.get(id))?.status === TaskStatus.SUCCEEDED);
  }
  running = await startConsole({ client, port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Signs the page's context in once, as an operator opens the address the console printed.
  await page.goto(running.loginUrl);
  attacker = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    const target = new URL(decodeURIComponent((req.url ?? '/').slice(1)), running.url).href;
    res.end(`<button id=b onclick="window.open('${target}')">Win</button>`);
  }).listen(0, '127.0.0.2');
  await once(attacker, 'listening');
}, 90_000);

afterAll(async () => {
  attacker?.close();
  await browser?.close();
  await running?.close();
  await executor?.stop();
  await emulator?.stop();
});

function shot(name: string): Promise<Buffer> {
  return page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

describe('console in Chromium', () => {
  it('shows the overview: counts, recent DEAD tasks and schedules', async () => {
    // Act
    await page.goto(running.url);
    await shot('overview');

    // Assert
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
    const succeeded = page.getByRole('link', { name: /SUCCEEDED/ }).first();
    expect(await succeeded.textContent()).toContain('3');
    expect(await page.getByRole('link', { name: SEEDED.dead }).count()).toBe(1);
    expect(await page.getByText('nightly-report').count()).toBeGreaterThan(0);
  });

  it('is keyboard-first: the first Tab reaches the skip link', async () => {
    // Act
    await page.goto(running.url);
    await page.keyboard.press('Tab');

    // Assert
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
  });

  it('filters the task list by status and type', async () => {
    // Arrange
    await page.goto(running.url);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Tasks', exact: true })
      .click();

    // Act
    await page.getByLabel('Status').selectOption('SUCCEEDED');
    await page.getByLabel('Type').fill('build-report');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=SUCCEEDED/);
    await shot('tasks-filtered');

    // Assert
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await page.locator('tbody').textContent()).not.toContain(SEEDED.dead);
  });

  it('opens a task: history timeline, payload and result', async () => {
    // Arrange
    await page.goto(`${running.url}tasks?status=SUCCEEDED`);

    // Act
    await page.getByRole('link', { name: SEEDED.reports[0] }).click();
    await shot('task-detail');

    // Assert
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      `Task ${SEEDED.reports[0]}`,
    );
    expect(await page.locator('ol.timeline li').count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator('section', { has: page.locator('#result') }).textContent()).toContain(
      '"rows": 42',
    );
  });

  it('shows a payload holding a <script> as text, without running it', async () => {
    // Act
    await page.goto(`${running.url}tasks/${SEEDED.dead}`);

    // Assert
    const payload = await page.locator('section', { has: page.locator('#payload') }).textContent();
    expect(payload).toContain(JSON.stringify(HOSTILE_NOTE).slice(1, -1));
    // A string, evaluated in the page: the test's own TypeScript has no DOM types.
    expect(await page.evaluate("'__tasklaneXss' in window")).toBe(false);
  });

  it('redrives a DEAD task after confirming, and the task then succeeds', async () => {
    // Arrange
    fragileState.healthy = true;
    await page.goto(`${running.url}dead`);

    // Act
    await page.getByLabel(`Select ${SEEDED.dead}`).check();
    await shot('dead-selected');
    await page.getByRole('button', { name: 'Redrive selected…' }).click();
    await shot('confirm-redrive');
    await page.getByRole('button', { name: 'Confirm redrive' }).click();
    const outcome = await page.getByRole('heading', { level: 1 }).textContent();
    await page.getByRole('link', { name: SEEDED.dead }).click();
    await eventually(async () => {
      await page.reload();
      return (
        (await page.locator('[data-region="task-head"] .status').textContent()) === 'SUCCEEDED'
      );
    }, 30_000);
    await shot('redriven-succeeded');

    // Assert
    expect(outcome).toBe('Redrove 1 of 1 tasks');
    expect(await page.locator('ol.timeline').textContent()).toContain('redriven');
  });

  it('pauses a schedule after confirming', async () => {
    // Arrange
    await page.goto(`${running.url}schedules`);

    // Act
    await page.getByRole('link', { name: 'Pause nightly-report' }).click();
    await page.getByRole('button', { name: 'Confirm pause' }).click();
    await page.getByRole('link', { name: 'Schedules' }).last().click();
    await shot('schedules-paused');

    // Assert
    expect(await page.locator('#schedule-nightly-report').textContent()).toContain('DISABLED');
    expect(await page.getByRole('link', { name: 'Resume nightly-report' }).count()).toBe(1);
  });

  it('resumes the schedule with the keyboard alone: the link, skip to content, Tab to Confirm', async () => {
    // Arrange
    await page.goto(`${running.url}schedules`);

    // Act
    await page.getByRole('link', { name: 'Resume nightly-report' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/confirm/);
    const focusedOnLoad = await page.evaluate('document.activeElement?.tagName');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    const focused = await page.evaluate('document.activeElement?.textContent');
    await page.keyboard.press('Enter');
    await page.waitForURL(/actions/);
    const outcome = await page.getByRole('heading', { level: 1 }).textContent();

    // Assert
    expect(focusedOnLoad).toBe('BODY');
    expect(focused).toBe('Confirm resume');
    expect(outcome).toBe('Resumed nightly-report');
    expect((await executor.client.schedules.get('nightly-report'))?.state).toBe('ENABLED');
  });
});

describe('console in Chromium: pause and resume', () => {
  it('pauses a scheduled task from its page after confirming, then resumes it', async () => {
    // Arrange: an hour out, so it stays SCHEDULED while the worker runs.
    const { client } = executor;
    await client.enqueue(
      reportTask,
      { month: 'later' },
      { id: 'paused-in-browser', delay: 3_600_000 },
    );
    await page.goto(`${running.url}tasks/paused-in-browser`);

    // Act
    await page.getByRole('link', { name: 'Pause this task…' }).click();
    const pauseQuestion = await page.locator('#confirm-what').textContent();
    await page.getByRole('button', { name: 'Confirm pause task' }).click();
    const paused = await page.getByRole('heading', { level: 1 }).textContent();
    await page.getByRole('link', { name: 'paused-in-browser' }).click();
    const pausedStatus = await page.locator('[data-region="task-head"] .status').textContent();
    const resumesTo = await page.locator('[data-region="task-facts"]').textContent();
    await shot('task-paused');
    await page.getByRole('link', { name: 'Resume this task…' }).click();
    await page.getByRole('button', { name: 'Confirm resume task' }).click();
    const resumed = await page.getByRole('heading', { level: 1 }).textContent();

    // Assert
    expect(pauseQuestion).toContain('Pause 1 task(s)');
    expect(paused).toBe('Paused 1 of 1 tasks');
    expect(pausedStatus).toBe('PAUSED');
    expect(resumesTo).toContain('resumes to SCHEDULED');
    expect(resumed).toBe('Resumed 1 of 1 tasks');
    expect((await client.get('paused-in-browser'))?.status).toBe(TaskStatus.SCHEDULED);
  });
});

describe('console in Chromium, against other sites', () => {
  it('refuses a purge confirmation another site opens: no form, and Enter purges nothing', async () => {
    // Arrange
    const context = page.context();
    await page.goto(attackerPage('confirm?action=purge&olderThanDays=0'));

    // Act
    const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#b')]);
    await popup.waitForLoadState();
    const title = await popup.title();
    const forms = await popup.locator('form').count();
    await popup.keyboard.press('Enter');
    await popup.waitForTimeout(500);
    await popup.close();

    // Assert
    expect(title).toBe('Request from another site refused · Tasklane console');
    expect(forms).toBe(0);
    expect(await executor.client.get(SEEDED.dead)).toBeDefined();
  });
});

describe('console in Chromium: the token', () => {
  it('shows a browser without the cookie the sign-in page, and signs it in from the printed address', async () => {
    // Arrange
    const fresh = await browser.newContext();
    const stranger = await fresh.newPage();

    // Act
    await stranger.goto(`${running.url}dead`);
    const refused = await stranger.getByRole('heading', { level: 1 }).textContent();
    await stranger.goto(running.loginUrl);
    const address = stranger.url();
    const cookies = await fresh.cookies();
    await stranger.goto(`${running.url}dead`);
    const signedIn = await stranger.getByRole('heading', { level: 1 }).textContent();
    await fresh.close();

    // Assert
    expect(refused).toBe('Sign in');
    expect(address).toBe(running.url);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]?.value).not.toBe(new URL(running.loginUrl).searchParams.get('token'));
    expect(signedIn).toBe('DEAD tasks');
  });
});

describe('console in Chromium: purge', () => {
  it('purges the listed DEAD tasks only once their number is typed', async () => {
    // Arrange
    fragileState.healthy = false;
    await executor.client.enqueue(fragileTask, { note: 'purge me' }, { id: 'browser-purge' });
    await eventually(
      async () => (await executor.client.get('browser-purge'))?.status === TaskStatus.DEAD,
    );
    await page.goto(`${running.url}dead`);
    await page.getByLabel('Died more than (days) ago').fill('0');
    await page.getByRole('button', { name: 'Purge…' }).click();
    await page.waitForURL(/confirm/);
    await shot('confirm-purge');

    // Act
    await page.getByRole('button', { name: 'Confirm purge' }).click();
    const stillHere = page.url();
    await page.getByLabel(/the number of tasks to delete/).fill('1');
    await page.getByRole('button', { name: 'Confirm purge' }).click();
    await page.waitForURL(/actions/);
    const outcome = await page.getByRole('heading', { level: 1 }).textContent();

    // Assert
    expect(stillHere).toMatch(/confirm/);
    expect(outcome).toBe('Purged 1 of 1 DEAD tasks');
    expect(await executor.client.get('browser-purge')).toBeUndefined();
  });
});
