/**
 * The console in a real browser (Debian's Chromium, driven by playwright-core) against a
 * local executor with seeded tasks: the clicks an operator makes every day.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningConsole, startConsole } from '../../src/console/index.js';
import { TaskStatus } from '../../src/constants.js';
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
  await client.schedule('nightly-report', {
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
}, 90_000);

afterAll(async () => {
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
      return (await page.locator('main > p .status').textContent()) === 'SUCCEEDED';
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

  it('resumes the schedule with the keyboard alone: Enter on the link, Enter to confirm', async () => {
    // Arrange
    await page.goto(`${running.url}schedules`);

    // Act
    await page.getByRole('link', { name: 'Resume nightly-report' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/confirm/);
    // autofocus lands after the load event, in the next rendering update: a key
    // pressed before then goes to the body. Wait for the focus a user would see.
    await page.waitForFunction("document.activeElement?.textContent === 'Confirm resume'");
    await page.keyboard.press('Enter');
    await page.waitForURL(/actions/);
    const outcome = await page.getByRole('heading', { level: 1 }).textContent();

    // Assert
    expect(outcome).toBe('Resumed nightly-report');
    expect((await executor.client.getSchedule('nightly-report'))?.state).toBe('ENABLED');
  });
});
