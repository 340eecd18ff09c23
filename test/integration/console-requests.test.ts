import { beforeAll, describe, expect, it } from 'vitest';
import type { TaskClient } from '../../src/client/task-client.js';
import { SEEDED } from '../helpers/console.js';
import { browse, consoleApp, postForm, seededExecutor, TEST_CSRF } from '../helpers/console-app.js';
import type { TestExecutor } from '../helpers/executor.js';
import { putRawItem, rawItem } from '../helpers/raw-item.js';

let executor: TestExecutor;
let client: TaskClient;

beforeAll(async () => {
  ({ executor, client } = await seededExecutor());
});

describe('console confirmation: Go back', () => {
  it.each([
    ['https://evil.example/dead', '/'],
    ['http://localhost//evil.example/', '/evil.example/'],
    ['http://localhost/\\evil.example', '/evil.example'],
    ['http://localhost/dead?cursor=c', '/dead?cursor=c'],
  ])('links a Referer of %s back to %s on the console', async (referer, back) => {
    // Act
    const res = await browse(consoleApp(client), '/confirm?action=pause&name=nightly', {
      referer,
    });

    // Assert
    expect(await res.text()).toContain(`<a href="${back}">Go back</a>`);
  });
});

describe('console GET /tasks/:id of a malformed record', () => {
  it('says which field of the record is wrong, and keeps the lists working', async () => {
    // Arrange: a producer's PutItem may write any attribute (docs/security.md).
    const item = await rawItem(executor, SEEDED.dead);
    await putRawItem(executor, {
      ...item,
      pk: 'odd-status',
      status: { toLowerCase: 'x' },
      lastError: { name: { isEscaped: true, v: '<b>x</b>' }, message: 'x' },
    });

    // Act
    const detail = await browse(consoleApp(client), '/tasks/odd-status');
    const body = await detail.text();
    const overview = await browse(consoleApp(client), '/');

    // Assert
    expect(detail.status).toBe(502);
    expect(body).toContain('The stored record of <code>odd-status</code> is malformed');
    expect(body).toContain('status: expected one of WAITING');
    expect(body).toContain('lastError: expected nothing, or { name, message } with two strings');
    expect(body).not.toContain('Something went wrong');
    expect(overview.status).toBe(200);
  });

  it('says so when a stored payload is not JSON', async () => {
    // Arrange
    const item = await rawItem(executor, SEEDED.dead);
    await putRawItem(executor, { ...item, pk: 'odd-payload', payload: '{not json' });

    // Act
    const res = await browse(consoleApp(client), '/tasks/odd-payload');

    // Assert
    expect(res.status).toBe(502);
    expect(await res.text()).toContain('SyntaxError');
  });
});

describe('console POST bodies', () => {
  it('refuses a form larger than 64 KiB with 413, before reading it', async () => {
    // Act
    const res = await postForm(consoleApp(client), '/actions/redrive', {
      id: Array.from({ length: 600 }, (_, n) => `${'x'.repeat(120)}-${n}`),
      _csrf: TEST_CSRF,
    });

    // Assert
    expect(res.status).toBe(413);
    expect(await res.text()).toContain('a form of at most 65536 bytes is accepted');
  });
});
