/**
 * The live console in Chromium: pages that update themselves over the live channel, the
 * charts of the last hour, search, local times, schedules with their firings, parked keys
 * and the pager. Against a local executor on an emulator of its own.
 */

import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  cloudWatchChartSource,
  type RunningConsole,
  startConsole,
} from '../../packages/cli/src/console/index.js';
import { OnDead, TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { type EmulatorHandle, startEmulator } from '../../src/local/emulator.js';
import { type LocalExecutor, startLocalExecutor } from '../../src/local/local-executor.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { CHROMIUM, screenshot } from '../helpers/browser-console.js';
import { fragileState, fragileTask, reportTask, SEEDED, seedTasks } from '../helpers/console.js';
import { eventually } from '../helpers/executor.js';

/** Open while `gate.open` is false: a task that stays RUNNING until the test lets it go. */
const gate = { open: false };
const slowTask = defineTask('slow-export', {
  schema: z.object({ rows: z.number() }),
  handler: async ({ rows }) => {
    await eventually(async () => gate.open, 50_000);
    return { rows };
  },
});

/** Dies and parks its ordering key until told to succeed. */
const parkState = { healthy: false };
const ledgerTask = defineTask('post-ledger', {
  schema: z.object({ entry: z.number() }),
  retry: { maxAttempts: 1 },
  onDead: OnDead.PARK,
  handler: ({ entry }) => {
    if (!parkState.healthy) throw new PermanentError(`ledger closed for entry ${entry}`);
    return { posted: entry };
  },
});

let emulator: EmulatorHandle;
let executor: LocalExecutor;
let running: RunningConsole;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let attacker: Server;

beforeAll(async () => {
  fragileState.healthy = false;
  await mkdir(path.join(import.meta.dirname, '__screenshots__'), { recursive: true });
  emulator = await startEmulator({
    log: path.join(import.meta.dirname, '__screenshots__', 'moto-live.log'),
  });
  executor = await startLocalExecutor({
    tasks: [reportTask, fragileTask, slowTask, ledgerTask],
    endpoint: emulator.endpoint,
    log: 'silent',
  });
  const { client } = executor;
  await seedTasks(client);
  await client.enqueueBatch(
    Array.from({ length: 30 }, (_, i) => ({
      task: reportTask,
      payload: { month: `batch-${i}` },
      options: { id: `batch-report-${String(i).padStart(2, '0')}`, orderingKey: 'reports' },
    })),
  );
  await client.enqueue(ledgerTask, { entry: 1 }, { id: 'ledger-1', orderingKey: 'account-7' });
  await client.enqueue(ledgerTask, { entry: 2 }, { id: 'ledger-2', orderingKey: 'account-7' });
  await client.enqueue(ledgerTask, { entry: 3 }, { id: 'ledger-3', orderingKey: 'account-9' });
  await client.schedules.set('hourly-digest', {
    task: reportTask,
    payload: { month: 'digest' },
    rate: '1 minute',
  });
  await client.schedules.set('nightly-report', {
    task: reportTask,
    payload: { month: 'current' },
    cron: '0 2 * * ? *',
  });
  await eventually(async () => (await client.get(SEEDED.dead))?.status === TaskStatus.DEAD);
  await eventually(async () => (await client.parkedKeys()).length === 2, 30_000);
  await eventually(
    async () => (await client.get('batch-report-29'))?.status === TaskStatus.SUCCEEDED,
    30_000,
  );
  running = await startConsole({ client, port: 0, liveIntervalMs: 500 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  // A zone far from UTC, so a local time cannot pass for a UTC one.
  context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    timezoneId: 'America/New_York',
  });
  page = await context.newPage();
  await page.goto(running.loginUrl);
  attacker = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<p>another site</p>');
  }).listen(0, '127.0.0.2');
  await once(attacker, 'listening');
}, 120_000);

afterAll(async () => {
  gate.open = true;
  attacker?.close();
  await browser?.close();
  await running?.close();
  await executor?.stop();
  await emulator?.stop();
});

/** The number in the overview's card of a status. */
async function countOf(status: string): Promise<number> {
  const card = page.locator('.cards a', { hasText: status });
  return Number(await card.locator('.n').textContent());
}

describe('the live console in Chromium', () => {
  it('draws the charts of the last hour from the task records', async () => {
    // Act
    await page.goto(running.url);
    await page.waitForSelector('[data-chart="throughput"][data-drawn="60"]');
    await page.waitForSelector('[data-chart="depth"] canvas');
    await screenshot(page, 'live-overview', 'console-overview');

    // Assert
    expect(await page.locator('[data-chart] canvas').count()).toBeGreaterThanOrEqual(4);
    const summary = page.locator('table.summary tbody td');
    expect(Number(await summary.nth(0).textContent())).toBeGreaterThanOrEqual(34);
    expect(Number(await summary.nth(1).textContent())).toBeGreaterThanOrEqual(33);
    expect(await page.locator('#chart-notes').textContent()).toContain('the task records');
  });

  it('updates the overview as tasks move, without a reload', async () => {
    // Arrange
    await page.goto(running.url);
    await page.waitForSelector('#live-state:not([hidden])');
    const before = await countOf('RUNNING');
    await page.evaluate('window.__sameDocument = true');

    // Act
    await executor.client.enqueue(slowTask, { rows: 1 }, { id: 'slow-1' });
    await eventually(async () => (await countOf('RUNNING')) === before + 1, 20_000);

    // Assert
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(await page.locator('#live-state').textContent()).toMatch(/^Live/);
  });

  it('follows a running task on its page until it succeeds', async () => {
    // Arrange
    await page.goto(`${running.url}tasks/slow-1`);
    const status = page.locator('[data-region="task-head"] .status');
    expect(await status.textContent()).toBe('RUNNING');
    await screenshot(page, 'live-task-running', 'console-task-running');

    // Act
    gate.open = true;
    await eventually(async () => (await status.textContent()) === 'SUCCEEDED', 20_000);

    // Assert
    expect(await page.locator('ol.timeline').textContent()).toContain('succeeded');
    expect(await page.locator('[data-region="task-result"]').textContent()).toContain('"rows": 1');
  });

  it('shows times in the browser’s zone with how long ago, and in UTC at a click', async () => {
    // Arrange
    await page.goto(`${running.url}tasks/${SEEDED.reports[0]}`);
    const created = page.locator('[data-region="task-facts"] time').first();
    const iso = (await created.getAttribute('datetime')) ?? '';
    const newYork = new Intl.DateTimeFormat('sv-SE', {
      timeZone: 'America/New_York',
      dateStyle: 'short',
      timeStyle: 'medium',
    }).format(new Date(iso));

    // Act
    const local = await created.textContent();
    await page.getByRole('button', { name: 'Times in America/New_York' }).click();
    const utc = await created.textContent();
    await page.getByRole('button', { name: 'Times in UTC' }).click();

    // Assert
    expect(local).toContain(newYork);
    expect(local).toMatch(/\((\d+ (seconds?|minutes?) ago|now)\)$/);
    expect(utc).toContain(`${iso.replace('T', ' ').slice(0, 19)} UTC`);
  });

  it('searches by id, by error text and by ordering key', async () => {
    // Arrange
    await page.goto(`${running.url}tasks`);

    // Act
    await page.getByRole('searchbox', { name: 'Search' }).fill(SEEDED.dead);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const byId = await page.locator('tbody tr').allTextContents();
    await page.getByRole('searchbox', { name: 'Search' }).fill('CARD PROCESSOR');
    await page.locator('#f-in').selectOption('error');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const byError = await page.locator('tbody tr').allTextContents();
    await screenshot(page, 'live-search', 'console-search');
    await page.getByRole('searchbox', { name: 'Search' }).fill('account-7');
    await page.locator('#f-in').selectOption('key');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const byKey = await page.locator('tbody tr td:first-child').allTextContents();

    // Assert
    expect(byId).toHaveLength(1);
    expect(byId[0]).toContain(SEEDED.dead);
    expect(byError).toHaveLength(1);
    expect(byError[0]).toContain('DEAD');
    expect(byKey.sort()).toEqual(['ledger-1', 'ledger-2']);
  });

  it('pages the list with a visible Next page button', async () => {
    // Arrange
    await page.goto(`${running.url}tasks?status=SUCCEEDED`);
    const next = page.getByRole('link', { name: 'Next page →' });

    // Act
    const box = await next.boundingBox();
    const first = await page.locator('tbody tr td:first-child').allTextContents();
    await next.click();
    await page.waitForURL(/cursor=/);
    const second = await page.locator('tbody tr td:first-child').allTextContents();

    // Assert
    expect(box?.height).toBeGreaterThanOrEqual(28);
    expect(box?.width).toBeGreaterThanOrEqual(90);
    expect(first).toHaveLength(25);
    expect(second.length).toBeGreaterThan(0);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    expect(await page.getByRole('link', { name: 'First page' }).count()).toBe(1);
  });
});

describe('charts from CloudWatch in Chromium', () => {
  it('draws the worker’s metrics and the queue’s depth as CloudWatch holds them', async () => {
    // Arrange: the emulator's CloudWatch holds what a deployed worker's EMF lines would make.
    const cloudwatch = new CloudWatchClient({
      endpoint: emulator.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const minuteAgo = new Date(Date.now() - 60_000);
    const service = [{ Name: 'service', Value: 'tasklane-orders' }];
    await cloudwatch.send(
      new PutMetricDataCommand({
        Namespace: 'Tasklane',
        MetricData: [
          {
            MetricName: 'TasksStarted',
            Dimensions: service,
            Timestamp: minuteAgo,
            Value: 12,
            Unit: 'Count',
          },
          {
            MetricName: 'TasksSucceeded',
            Dimensions: service,
            Timestamp: minuteAgo,
            Value: 9,
            Unit: 'Count',
          },
          {
            MetricName: 'TasksFailed',
            Dimensions: service,
            Timestamp: minuteAgo,
            Value: 3,
            Unit: 'Count',
          },
          {
            MetricName: 'TasksDead',
            Dimensions: service,
            Timestamp: minuteAgo,
            Value: 1,
            Unit: 'Count',
          },
        ],
      }),
    );
    await cloudwatch.send(
      new PutMetricDataCommand({
        Namespace: 'AWS/SQS',
        MetricData: [
          {
            MetricName: 'ApproximateNumberOfMessagesVisible',
            Dimensions: [{ Name: 'QueueName', Value: 'orders-work.fifo' }],
            Timestamp: minuteAgo,
            Value: 7,
          },
        ],
      }),
    );
    const deployed = await startConsole({
      client: executor.client,
      port: 0,
      charts: cloudWatchChartSource({
        cloudwatch,
        service: 'tasklane-orders',
        queueNames: ['orders-work.fifo'],
      }),
    });
    const viewer = await context.newPage();

    // Act
    await viewer.goto(deployed.loginUrl);
    await viewer.waitForSelector('[data-chart="throughput"][data-drawn="60"]');
    await screenshot(viewer, 'live-overview-cloudwatch');
    const cells = await viewer.locator('table.summary tbody td').allTextContents();
    const notes = await viewer.locator('#chart-notes').textContent();
    await viewer.close();
    await deployed.close();

    // Assert
    expect(cells.slice(0, 4)).toEqual(['12', '9', '3', '1']);
    expect(cells[6]).toBe('7');
    expect(notes).toContain('CloudWatch metrics');
  });
});

describe('the live channel, guarded as the pages are', () => {
  it('refuses a live stream another site opens, and one without the session', async () => {
    // Arrange
    const { port } = attacker.address() as AddressInfo;
    const other = await context.newPage();
    await other.goto(`http://127.0.0.2:${port}/`);
    const stranger = await browser.newContext();
    const unsigned = await stranger.newPage();
    await unsigned.goto(`${running.url}assets/console.css`);

    // Act: another site sends the browser to the channel; a browser without the cookie opens it.
    const [crossSite] = await Promise.all([
      other.waitForResponse((r) => r.url().includes('/live')),
      other.evaluate(`location.href = ${JSON.stringify(`${running.url}live?page=/`)}`),
    ]);
    const noSession = await unsigned.goto(`${running.url}live?page=/`);
    await other.close();
    await stranger.close();

    // Assert
    expect(crossSite.status()).toBe(403);
    expect(noSession?.status()).toBe(401);
  });
});

describe('schedules in Chromium', () => {
  it('shows next and last firings, links to a firing’s task, and deletes after confirming', async () => {
    // Arrange: the rate schedule fires on the minute; wait for its first task.
    await eventually(async () => {
      const d = await executor.client.schedules.get('hourly-digest');
      const fired = await Promise.all(
        (d?.recentFirings ?? []).map((f) => executor.client.get(f.taskId)),
      );
      return fired.some((t) => t !== undefined);
    }, 90_000);
    await page.goto(`${running.url}schedules`);
    const row = page.locator('#schedule-hourly-digest');
    await screenshot(page, 'live-schedules', 'console-schedules');

    // Act
    const next = await row.locator('td').nth(3).locator('time').count();
    await row.locator('td').nth(4).locator('a').first().click();
    const taskTitle = await page.getByRole('heading', { level: 1 }).textContent();
    await page.goto(`${running.url}schedules`);
    await page.getByRole('link', { name: 'Delete hourly-digest' }).click();
    await page.getByRole('button', { name: 'Confirm delete' }).click();
    const outcome = await page.getByRole('heading', { level: 1 }).textContent();

    // Assert
    expect(next).toBe(3);
    expect(taskTitle).toMatch(/^Task hourly-digest@\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(outcome).toBe('Deleted hourly-digest');
    expect(await executor.client.schedules.get('hourly-digest')).toBeUndefined();
  });
});

describe('parked keys in Chromium', () => {
  it('lists parked keys per lane, and releases one after confirming', async () => {
    // Arrange
    await page.goto(`${running.url}parked`);
    await screenshot(page, 'live-parked', 'console-parked');
    const keys = await page.locator('tbody th').allTextContents();

    // Act
    await page.getByRole('link', { name: 'Release key account-9' }).click();
    await screenshot(page, 'live-confirm-release');
    await page.getByRole('button', { name: 'Confirm release' }).click();
    const outcome = await page.getByRole('heading', { level: 1 }).textContent();

    // Assert
    expect(keys.sort()).toEqual(['account-7', 'account-9']);
    expect(outcome).toBe('Released key account-9');
    expect((await executor.client.parkedKeys()).map((k) => k.orderingKey)).toEqual(['account-7']);
    expect((await executor.client.get('ledger-3'))?.status).toBe(TaskStatus.DEAD);
  });

  it('redrives a parked key after confirming: its dead task first, then the rest in order', async () => {
    // Arrange
    parkState.healthy = true;
    await page.goto(`${running.url}parked`);

    // Act
    await page.getByRole('link', { name: 'Redrive key account-7' }).click();
    await page.getByRole('button', { name: 'Confirm redrive key' }).click();
    const outcome = await page.getByRole('heading', { level: 1 }).textContent();
    await eventually(
      async () => (await executor.client.get('ledger-2'))?.status === TaskStatus.SUCCEEDED,
      30_000,
    );
    await page.goto(`${running.url}parked`);

    // Assert
    expect(outcome).toMatch(/^Redrove 1 DEAD task\(s\) of key account-7$/);
    expect((await executor.client.get('ledger-1'))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(await page.getByText('No parked keys.').count()).toBe(1);
  });
});
