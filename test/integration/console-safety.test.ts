import { beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../packages/cli/src/console/index.js';
import type { TaskClient } from '../../src/client/task-client.js';
import { TaskStatus } from '../../src/core/constants.js';
import { ConfigurationError } from '../../src/core/errors.js';
import { fragileTask, reportTask } from '../helpers/console.js';
import {
  consoleApp,
  csrfIn,
  hiddenValues,
  postForm,
  seededExecutor,
  TEST_CSRF,
} from '../helpers/console-app.js';
import type { TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
let client: TaskClient;

beforeAll(async () => {
  ({ executor, client } = await seededExecutor());
});

/** Makes a fresh DEAD task with this id. */
async function deadTask(id: string): Promise<void> {
  await client.enqueue(fragileTask, { note: id }, { id });
  await executor.drain(executor.worker([fragileTask]));
}

describe('console actions: CSRF', () => {
  it('refuses a POST without the CSRF token and leaves the task as it was', async () => {
    // Arrange
    await deadTask('dead-no-csrf');
    const app = consoleApp(client);

    // Act
    const res = await postForm(app, '/actions/redrive', { id: 'dead-no-csrf' });

    // Assert
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('no valid CSRF token');
    expect(await client.get('dead-no-csrf')).toMatchObject({ status: TaskStatus.DEAD });
  });

  it('refuses a POST with a wrong CSRF token', async () => {
    // Arrange
    const app = consoleApp(client);

    // Act
    const res = await postForm(app, '/actions/purge', { olderThanDays: '0', _csrf: 'guessed' });

    // Assert
    expect(res.status).toBe(403);
  });

  it('redrives a DEAD task after the confirmation step, with the token from that page', async () => {
    // Arrange
    await deadTask('dead-to-redrive');
    const app = consoleApp(client);
    const confirm = await (await app.request('/confirm?action=redrive&id=dead-to-redrive')).text();

    // Act
    const res = await postForm(app, '/actions/redrive', {
      id: 'dead-to-redrive',
      _csrf: csrfIn(confirm) ?? '',
    });

    // Assert
    expect(confirm).toContain('Redrive 1 DEAD task(s)');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Redrove 1 of 1 tasks');
    expect((await client.get('dead-to-redrive'))?.status).not.toBe(TaskStatus.DEAD);
  });

  it('cancels a task that has not started, and reports one that cannot be cancelled', async () => {
    // Arrange
    await client.enqueue(reportTask, { month: 'x' }, { id: 'queued-to-cancel' });
    const app = consoleApp(client);

    // Act
    const res = await postForm(app, '/actions/cancel', {
      id: ['queued-to-cancel', 'report-2026-01'],
      _csrf: TEST_CSRF,
    });

    // Assert
    const body = await res.text();
    expect(body).toContain('Cancelled 1 of 2 tasks');
    expect(body).toContain('report-2026-01: not cancelled');
    expect(await client.get('queued-to-cancel')).toMatchObject({ status: TaskStatus.CANCELLED });
  });

  it('answers 400 naming the problem for an action without a selection', async () => {
    // Act
    const res = await postForm(consoleApp(client), '/actions/redrive', { _csrf: TEST_CSRF });

    // Assert
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('select at least one task');
  });
});

describe('console actions: purge', () => {
  it('lists in the confirmation what a purge would delete, then deletes it once the count is typed', async () => {
    // Arrange
    await deadTask('dead-to-purge');
    const app = consoleApp(client);

    // Act
    const confirm = await (await app.request('/confirm?action=purge&olderThanDays=0')).text();
    const ids = hiddenValues(confirm, 'id');
    const res = await postForm(app, '/actions/purge', {
      olderThanDays: '0',
      id: ids,
      asOf: hiddenValues(confirm, 'asOf'),
      count: String(ids.length),
      _csrf: TEST_CSRF,
    });

    // Assert
    expect(confirm).toContain('href="/tasks/dead-to-purge"');
    expect(await res.text()).toContain('dead-to-purge: deleted');
    expect(await client.get('dead-to-purge')).toBeUndefined();
  });
});

describe('console actions: read-only', () => {
  it('hides every action and refuses a POST even with the CSRF token', async () => {
    // Arrange
    await deadTask('dead-read-only');
    const app = consoleApp(client, { readOnly: true });

    // Act
    const dead = await (await app.request('/dead')).text();
    const detail = await (await app.request('/tasks/dead-read-only')).text();
    const confirm = await app.request('/confirm?action=redrive&id=dead-read-only');
    const post = await postForm(app, '/actions/redrive', {
      id: 'dead-read-only',
      _csrf: TEST_CSRF,
    });

    // Assert
    expect(dead).toContain('Read-only: actions are disabled');
    expect(dead).not.toContain('type="checkbox"');
    expect(dead).not.toContain('Redrive selected');
    expect(detail).not.toContain('/confirm?');
    expect(confirm.status).toBe(403);
    expect(post.status).toBe(403);
    expect(await client.get('dead-read-only')).toMatchObject({ status: TaskStatus.DEAD });
  });
});

describe('console GET / without a dead-letter queue URL', () => {
  it('says why the dead-letter queue could not be read, and shows the rest', async () => {
    // Act
    const res = await consoleApp(client).request('/');

    // Assert
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(body).toContain('The dead-letter queue could not be read:');
    expect(body).toContain('<h2 id="by-type">Tasks by type</h2>');
  });
});

describe('console access', () => {
  it('refuses a request whose Host is not a loopback name (DNS rebinding)', async () => {
    // Act
    const res = await consoleApp(client).request('http://attacker.example/');

    // Assert
    expect(res.status).toBe(403);
  });
});

describe('startConsole', () => {
  it('refuses a non-loopback address without --allow-remote, or with --no-auth', async () => {
    // Act
    const bare = await startConsole({ client, host: '0.0.0.0', port: 0 }).catch((e) => e);
    const noAuth = await startConsole({
      client,
      host: '0.0.0.0',
      allowRemote: true,
      auth: false,
    }).catch((e) => e);

    // Assert
    expect(bare).toBeInstanceOf(ConfigurationError);
    expect(bare.message).toMatch(/not a loopback address: pass --allow-remote/);
    expect(noAuth).toBeInstanceOf(ConfigurationError);
    expect(noAuth.message).toMatch(/drop --no-auth/);
  });

  it('serves the pages over HTTP on 127.0.0.1 to a signed-in request, and stops on close', async () => {
    // Arrange
    const running = await startConsole({ client, port: 0 });

    // Act
    const anonymous = await fetch(running.url);
    const login = await fetch(running.loginUrl, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    const signedIn = await fetch(running.url, { headers: { cookie } });
    await running.close();

    // Assert
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(running.tokenGenerated).toBe(true);
    expect(anonymous.status).toBe(401);
    expect(login.status).toBe(303);
    expect(signedIn.status).toBe(200);
    expect(await signedIn.text()).toContain('<h1>Overview</h1>');
    await expect(fetch(running.url)).rejects.toThrow();
  });

  it('serves every request with auth: false (--no-auth)', async () => {
    // Arrange
    const running = await startConsole({ client, port: 0, auth: false });

    // Act
    const res = await fetch(running.url);
    await running.close();

    // Assert
    expect(running.loginUrl).toBe(running.url);
    expect(res.status).toBe(200);
  });

  it('listens beyond loopback with --allow-remote, and then demands the token', async () => {
    // Arrange
    const running = await startConsole({
      client,
      host: '0.0.0.0',
      port: 0,
      allowRemote: true,
      accessToken: 'another-long-access-token',
    });
    const port = new URL(running.url).port;

    // Act
    const res = await fetch(`http://127.0.0.1:${port}/`);
    const bearer = await fetch(`http://127.0.0.1:${port}/`, {
      headers: { authorization: 'Bearer another-long-access-token' },
    });
    await running.close();

    // Assert
    expect(running.tokenGenerated).toBe(false);
    expect(res.status).toBe(401);
    expect(bearer.status).toBe(200);
  });
});
