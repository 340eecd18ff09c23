import { beforeAll, describe, expect, it } from 'vitest';
import type { TaskClient } from '../../src/client/task-client.js';
import {
  browse,
  consoleApp,
  countingClient,
  postForm,
  seededExecutor,
} from '../helpers/console-app.js';
import type { TestExecutor } from '../helpers/executor.js';

const TOKEN = 'a-long-enough-access-token';

let executor: TestExecutor;
let client: TaskClient;

beforeAll(async () => {
  ({ executor, client } = await seededExecutor());
});

/** The `name=value` of the response's Set-Cookie, and its attributes. */
function cookieOf(res: Response): { pair: string; attributes: string } {
  const header = res.headers.get('set-cookie') ?? '';
  const [pair = '', ...rest] = header.split(';');
  return { pair, attributes: rest.join(';') };
}

describe('console sign-in', () => {
  it('answers a request without the token with the sign-in page, and no AWS call', async () => {
    // Arrange
    const counted = countingClient(executor);

    // Act
    const res = await browse(consoleApp(counted.client, { accessToken: TOKEN }), '/dead');

    // Assert
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('<form method="post" action="/login"');
    expect(counted.calls()).toBe(0);
  });

  it('trades ?token= for a session cookie that holds no token, then drops it from the address', async () => {
    // Arrange
    const app = consoleApp(client, { accessToken: TOKEN });

    // Act
    const login = await browse(app, `/tasks?status=DEAD&token=${TOKEN}`, { site: 'none' });
    const cookie = cookieOf(login);
    const page = await browse(app, '/', { cookie: cookie.pair });

    // Assert
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/tasks?status=DEAD');
    expect(cookie.pair).toMatch(/^tasklane_console_default=[\w-]{43}$/);
    expect(cookie.pair).not.toContain(TOKEN);
    expect(cookie.attributes).toContain('HttpOnly');
    expect(cookie.attributes).toContain('SameSite=Strict');
    expect(cookie.attributes).not.toContain('Secure');
    expect(page.status).toBe(200);
  });

  it('marks the cookie Secure when the request came over HTTPS', async () => {
    // Act
    const login = await browse(
      consoleApp(client, { accessToken: TOKEN }),
      `https://localhost/?token=${TOKEN}`,
    );

    // Assert
    expect(cookieOf(login).attributes).toContain('Secure');
  });

  it('refuses a wrong token, and a cookie of another run of the console', async () => {
    // Arrange
    const first = consoleApp(client, { accessToken: TOKEN });
    const second = consoleApp(client, { accessToken: TOKEN });
    const cookie = cookieOf(await browse(first, `/?token=${TOKEN}`)).pair;

    // Act
    const wrong = await browse(first, '/?token=guessed-but-long-enough');
    const replayed = await browse(second, '/', { cookie });

    // Assert
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('That token does not match');
    expect(replayed.status).toBe(401);
  });

  it('signs in from the form and returns to the page asked for, never to another site', async () => {
    // Arrange
    const app = consoleApp(client, { accessToken: TOKEN });
    const own = { site: 'same-origin' } as const;

    // Act
    const back = await postForm(app, '/login', { token: TOKEN, next: '/schedules' }, own);
    const away = await postForm(app, '/login', { token: TOKEN, next: '//evil.example/' }, own);
    const wrong = await postForm(app, '/login', { token: 'nope', next: '/' }, own);

    // Assert
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe('/schedules');
    expect(away.headers.get('location')).toBe('/');
    expect(wrong.status).toBe(401);
  });

  it('accepts the token as a bearer token, for scripts', async () => {
    // Act
    const res = await consoleApp(client, { accessToken: TOKEN }).request('/', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });

    // Assert
    expect(res.status).toBe(200);
  });

  it('refuses a sign-in form posted from another site', async () => {
    // Act
    const res = await postForm(
      consoleApp(client, { accessToken: TOKEN }),
      '/login',
      { token: TOKEN, next: '/' },
      { site: 'cross-site', origin: 'http://evil.example' },
    );

    // Assert
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});
