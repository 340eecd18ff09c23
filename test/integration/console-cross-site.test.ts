import { beforeAll, describe, expect, it } from 'vitest';
import type { TaskClient } from '../../src/client/task-client.js';
import { TaskStatus } from '../../src/core/constants.js';
import { reportTask, SEEDED } from '../helpers/console.js';
import {
  browse,
  consoleApp,
  countingClient,
  postForm,
  seededExecutor,
  TEST_CSRF,
  TEST_ORIGIN,
} from '../helpers/console-app.js';
import type { TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let client: TaskClient;

beforeAll(async () => {
  ({ executor, client } = await seededExecutor());
});

describe('console requests from another site', () => {
  it('refuses a cross-site GET of the purge confirmation without rendering it or reading a task', async () => {
    // Arrange
    const counted = countingClient(executor);
    const app = consoleApp(counted.client);

    // Act
    const res = await browse(app, '/confirm?action=purge&olderThanDays=0', { site: 'cross-site' });
    const body = await res.text();

    // Assert
    expect(res.status).toBe(403);
    expect(body).toContain('Sec-Fetch-Site: cross-site');
    expect(body).not.toContain('<form');
    expect(body).not.toContain('Confirm purge');
    expect(counted.calls()).toBe(0);
  });

  it('refuses another port of the same host (same-site), for a page and for a POST', async () => {
    // Arrange
    const counted = countingClient(executor);
    const app = consoleApp(counted.client);

    // Act
    const page = await browse(app, '/', { site: 'same-site' });
    const post = await postForm(
      app,
      '/actions/redrive',
      { id: SEEDED.dead, _csrf: TEST_CSRF },
      { site: 'same-site', origin: 'http://localhost:3000' },
    );

    // Assert
    expect(page.status).toBe(403);
    expect(post.status).toBe(403);
    expect(counted.calls()).toBe(0);
    expect(await client.get(SEEDED.dead)).toMatchObject({ status: TaskStatus.DEAD });
  });

  it('refuses a POST whose Origin is another site when the browser sends no Fetch Metadata', async () => {
    // Act
    const res = await postForm(
      consoleApp(client),
      '/actions/redrive',
      { id: SEEDED.dead, _csrf: TEST_CSRF },
      { origin: 'http://127.0.0.2:8080' },
    );

    // Assert
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Origin: http://127.0.0.2:8080');
    expect(await client.get(SEEDED.dead)).toMatchObject({ status: TaskStatus.DEAD });
  });

  it('offers a cross-site link to a task as a link on the console, without reading the task', async () => {
    // Arrange
    const counted = countingClient(executor);

    // Act
    const res = await browse(consoleApp(counted.client), `/tasks/${SEEDED.dead}`, {
      site: 'cross-site',
    });

    // Assert
    expect(res.status).toBe(403);
    expect(await res.text()).toContain(`<a href="/tasks/${SEEDED.dead}">`);
    expect(counted.calls()).toBe(0);
  });

  it('shows a confirmation only when the console’s own page opened it', async () => {
    // Arrange
    const app = consoleApp(client);

    // Act
    const typed = await browse(app, `/confirm?action=redrive&id=${SEEDED.dead}`, { site: 'none' });
    const own = await browse(app, `/confirm?action=redrive&id=${SEEDED.dead}`, {
      site: 'same-origin',
    });
    const overview = await browse(app, '/', { site: 'none' });

    // Assert
    expect(typed.status).toBe(403);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('Confirm redrive');
    expect(overview.status).toBe(200);
  });

  it('acts on a POST from its own page', async () => {
    // Arrange
    await client.enqueue(reportTask, { month: 'x' }, { id: 'queued-own-page' });

    // Act
    const res = await postForm(
      consoleApp(client),
      '/actions/cancel',
      { id: 'queued-own-page', _csrf: TEST_CSRF },
      { site: 'same-origin', origin: TEST_ORIGIN },
    );

    // Assert
    expect(res.status).toBe(200);
    expect(await client.get('queued-own-page')).toMatchObject({ status: TaskStatus.CANCELLED });
  });
});
