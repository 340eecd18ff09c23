import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TaskClient } from '../../src/client/task-client.js';
import { TaskStatus } from '../../src/core/constants.js';
import { fragileTask, HOSTILE_NOTE, reportTask, SEEDED, seedTasks } from '../helpers/console.js';
import { consoleApp } from '../helpers/console-app.js';
import { setupExecutor } from '../helpers/executor.js';

let client: TaskClient;
let app: Hono;

beforeAll(async () => {
  const executor = await setupExecutor();
  client = executor.client({ deadLetterQueueUrl: executor.deadLetterQueueUrl });
  await seedTasks(client);
  await executor.drain(executor.worker([reportTask, fragileTask]));
  await client.enqueue(reportTask, { month: 'later' }, { id: 'report-later', orderingKey: 'k1' });
  await client.schedules.set('nightly-report', {
    task: reportTask,
    payload: { month: 'current' },
    cron: '0 2 * * ? *',
  });
  app = consoleApp(client);
});

async function get(path: string): Promise<{ status: number; body: string; headers: Headers }> {
  const res = await app.request(path);
  return { status: res.status, body: await res.text(), headers: res.headers };
}

describe('console GET /', () => {
  it('shows counts by status and by type, recent DEAD tasks and the schedules', async () => {
    // Act
    const page = await get('/');

    // Assert
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h1>Overview</h1>');
    expect(page.body).toMatch(/<span class="n">3<\/span><span class="status status-succeeded">/);
    expect(page.body).toMatch(/<span class="n">1<\/span><span class="status status-dead">/);
    expect(page.body).toMatch(/<span class="n">1<\/span><span class="status status-pending">/);
    expect(page.body).toContain('>build-report</a>');
    expect(page.body).toContain(`/tasks/${SEEDED.dead}`);
    expect(page.body).toContain('nightly-report');
    expect(page.body).toContain('<dt>Messages</dt><dd>0</dd>');
  });
});

describe('console GET /tasks', () => {
  it('filters by status and type, newest first', async () => {
    // Act
    const page = await get('/tasks?status=SUCCEEDED&type=build-report');

    // Assert
    const ids = [...page.body.matchAll(/href="\/tasks\/(report-[^"]+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(3);
    expect(new Set(ids)).toEqual(new Set(SEEDED.reports));
    expect(page.body).not.toContain(SEEDED.dead);
    expect(page.body).toContain('<option value="SUCCEEDED" selected>');
  });

  it('filters by ordering key and by time of the last status change', async () => {
    // Act
    const byKey = await get('/tasks?key=k1');
    const future = await get(`/tasks?since=${new Date(Date.now() + 3_600_000).toISOString()}`);

    // Assert
    expect(byKey.body).toContain('/tasks/report-later');
    expect(byKey.body).not.toContain('/tasks/report-2026-01');
    expect(future.body).toContain('No tasks match.');
  });

  it('pages through the list with a next link that keeps the filters', async () => {
    // Arrange
    await client.enqueueBatch(
      Array.from({ length: 26 }, (_, n) => ({
        task: reportTask,
        payload: { month: `bulk-${n}` },
        options: { id: `bulk-${String(n).padStart(2, '0')}` },
      })),
    );

    // Act
    const first = await get('/tasks?status=PENDING&limit=25');
    const next = /href="(\/tasks\?[^"]*cursor=[^"]+)" rel="next"/.exec(first.body)?.[1];
    const second = await get((next ?? '').replaceAll('&amp;', '&'));

    // Assert
    expect(first.body.match(/href="\/tasks\/(bulk|report)-/g)).toHaveLength(25);
    expect(next).toContain('status=PENDING');
    expect(second.body.match(/href="\/tasks\/(bulk|report)-/g)).toHaveLength(2);
    expect(second.body).toContain('Last page');
  });

  it('offers to cancel selected tasks only where the status can still be cancelled', async () => {
    // Act
    const queued = await get('/tasks?status=PENDING&key=k1');
    const succeeded = await get('/tasks?status=SUCCEEDED');

    // Assert
    expect(queued.body).toContain('name="id" value="report-later"');
    expect(queued.body).toContain('value="cancel" class="danger">Cancel selected');
    expect(succeeded.body).not.toContain('type="checkbox"');
  });

  it('answers 400 naming every invalid filter', async () => {
    // Act
    const page = await get('/tasks?status=LOST&since=yesterday&limit=7');

    // Assert
    expect(page.status).toBe(400);
    expect(page.body).toContain('status: expected one of WAITING, SCHEDULED');
    expect(page.body).toContain('since: expected an age such as 30m');
    expect(page.body).toContain('limit: expected one of 25, 50, 100; received &quot;7&quot;');
  });

  it('answers 400 for a cursor the SDK does not recognise', async () => {
    // Act
    const page = await get('/tasks?cursor=not-a-cursor');

    // Assert
    expect(page.status).toBe(400);
    expect(page.body).toContain('Invalid filters');
  });
});

describe('console GET /tasks/:id', () => {
  it('shows the history timeline, payload, result and progress of a task', async () => {
    // Act
    const page = await get(`/tasks/${SEEDED.reports[0]}`);

    // Assert
    expect(page.body).toContain('<h2 id="history">History</h2>');
    expect(page.body).toMatch(/<strong>claimed<\/strong>/);
    expect(page.body).toMatch(/<strong>succeeded<\/strong>/);
    expect(page.body).toContain('&quot;rows&quot;: 42');
    expect(page.body).toContain('<progress id="attempts" max="3" value="1">');
  });

  it('shows a payload containing markup escaped, never as markup', async () => {
    // Act
    const page = await get(`/tasks/${SEEDED.dead}`);

    // Assert
    expect(page.body).not.toContain(HOSTILE_NOTE);
    expect(page.body).not.toContain('<script>');
    expect(page.body).toContain('&lt;script&gt;window.__tasklaneXss = true&lt;/script&gt;');
    expect(page.body).toContain('card processor unavailable');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('answers 404 for an unknown id, showing the id escaped', async () => {
    // Act
    const page = await get('/tasks/%3Cimg%20src%3Dx%3E');

    // Assert
    expect(page.status).toBe(404);
    expect(page.body).toContain('&lt;img src=x&gt;');
  });
});

describe('console GET /schedules', () => {
  it('lists each schedule with its state, expression, task type, next firings and actions', async () => {
    // Act
    const page = await get('/schedules');

    // Assert
    expect(page.body).toContain('<th scope="row">nightly-report<br>');
    expect(page.body).toContain('href="/tasks?q=nightly-report%40&amp;in=id">All its tasks</a>');
    expect(page.body).toContain('status-enabled');
    expect(page.body).toContain('0 2 * * ? *');
    expect(page.body).toMatch(/<ul class="firings"><li><time datetime="[^"]+T02:00:00.000Z">/);
    expect(page.body).toContain('href="/confirm?action=pause&amp;name=nightly-report"');
    expect(page.body).toContain('href="/confirm?action=delete&amp;name=nightly-report"');
  });
});

describe('console GET /dead', () => {
  it('lists DEAD tasks with a checkbox each and the actions', async () => {
    // Act
    const page = await get('/dead');

    // Assert
    expect(page.body).toContain(`name="id" value="${SEEDED.dead}"`);
    expect(page.body).toContain('value="redrive">Redrive selected');
    expect(page.body).toContain('name="olderThanDays"');
    expect(await client.get(SEEDED.dead)).toMatchObject({ status: TaskStatus.DEAD });
  });
});
