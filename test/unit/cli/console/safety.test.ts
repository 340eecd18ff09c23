import { describe, expect, it } from 'vitest';
import { parseAction } from '../../../../packages/cli/src/console/actions.js';
import {
  crossSiteVerdict,
  type RequestOrigin,
} from '../../../../packages/cli/src/console/cross-site.js';
import { parseTime, readListQuery } from '../../../../packages/cli/src/console/list-query.js';
import {
  assertBindAllowed,
  isLoopbackHost,
  sameOriginPath,
  sameSecret,
} from '../../../../packages/cli/src/console/safety.js';
import { ConfigurationError } from '../../../../src/core/errors.js';

describe('isLoopbackHost', () => {
  it.each(['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]'])(
    'treats %s as loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each(['0.0.0.0', '::', '192.168.1.10', 'localhost.attacker.example', '127.0.0.1.nip.io'])(
    'treats %s as reachable from elsewhere',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );
});

describe('assertBindAllowed', () => {
  it('allows loopback with or without the token, and with a long token of its own', () => {
    expect(() =>
      assertBindAllowed({
        host: '127.0.0.1',
        allowRemote: false,
        auth: true,
        accessToken: undefined,
      }),
    ).not.toThrow();
    expect(() =>
      assertBindAllowed({ host: '::1', allowRemote: false, auth: false, accessToken: undefined }),
    ).not.toThrow();
    expect(() =>
      assertBindAllowed({
        host: 'localhost',
        allowRemote: false,
        auth: true,
        accessToken: 'x'.repeat(16),
      }),
    ).not.toThrow();
  });

  it('refuses a remote bind without the flag and a short token, naming both fixes', () => {
    // Act
    const act = () =>
      assertBindAllowed({ host: '0.0.0.0', allowRemote: false, auth: true, accessToken: 'x' });

    // Assert
    expect(act).toThrow(ConfigurationError);
    expect(act).toThrow(/at least 16 characters; received 1 characters.*--allow-remote/);
  });

  it('refuses a remote bind without the token, and a token given with --no-auth', () => {
    // Act
    const remote = () =>
      assertBindAllowed({ host: '::', allowRemote: true, auth: false, accessToken: undefined });
    const both = () =>
      assertBindAllowed({
        host: '127.0.0.1',
        allowRemote: false,
        auth: false,
        accessToken: 'x'.repeat(20),
      });

    // Assert
    expect(remote).toThrow(/drop --no-auth/);
    expect(both).toThrow(/together with --no-auth/);
  });

  it('allows a remote bind with the flag and the token, made or given', () => {
    expect(() =>
      assertBindAllowed({ host: '::', allowRemote: true, auth: true, accessToken: undefined }),
    ).not.toThrow();
    expect(() =>
      assertBindAllowed({ host: '::', allowRemote: true, auth: true, accessToken: 'x'.repeat(16) }),
    ).not.toThrow();
  });
});

describe('sameOriginPath', () => {
  const own = 'http://127.0.0.1:4680';

  it.each([
    ['http://127.0.0.1:4680/dead?cursor=x', '/dead?cursor=x'],
    ['/tasks?status=DEAD', '/tasks?status=DEAD'],
    ['http://127.0.0.1:4680//evil.example/', '/evil.example/'],
    ['http://127.0.0.1:4680/\\evil.example/', '/evil.example/'],
  ])('keeps %s on the console as %s', (value, path) => {
    expect(sameOriginPath(value, own)).toBe(path);
  });

  it.each([
    'https://evil.example/',
    '//evil.example/x',
    '/\\evil.example',
    'http://127.0.0.1:9999/',
    'javascript:alert(1)',
    'http://[bad',
    undefined,
  ])('turns %s into /', (value) => {
    expect(sameOriginPath(value, own)).toBe('/');
  });
});

describe('crossSiteVerdict', () => {
  const own = 'http://127.0.0.1:4680';
  const request = (over: Partial<RequestOrigin>): RequestOrigin => ({
    method: 'GET',
    path: '/',
    fetchSite: undefined,
    origin: undefined,
    ownOrigin: own,
    ...over,
  });

  it('lets the console’s own pages through, and typed addresses of pages that only show', () => {
    expect(
      crossSiteVerdict(request({ fetchSite: 'same-origin', path: '/confirm' })),
    ).toBeUndefined();
    expect(crossSiteVerdict(request({ fetchSite: 'same-origin', method: 'POST' }))).toBeUndefined();
    expect(crossSiteVerdict(request({ fetchSite: 'none', path: '/tasks/x' }))).toBeUndefined();
  });

  it('refuses another site, another port of the same host, and a confirmation not opened from the console', () => {
    expect(crossSiteVerdict(request({ fetchSite: 'cross-site' }))).toMatch(/another site/);
    expect(crossSiteVerdict(request({ fetchSite: 'same-site', method: 'POST' }))).toMatch(
      /Sec-Fetch-Site: same-site/,
    );
    expect(crossSiteVerdict(request({ fetchSite: 'none', path: '/confirm' }))).toMatch(
      /console’s own pages/,
    );
    expect(crossSiteVerdict(request({ fetchSite: 'bogus' }))).toBeDefined();
  });

  it('falls back on Origin without Fetch Metadata: another origin and null are refused', () => {
    expect(crossSiteVerdict(request({ method: 'POST', origin: own }))).toBeUndefined();
    expect(crossSiteVerdict(request({ method: 'POST' }))).toBeUndefined();
    expect(crossSiteVerdict(request({ method: 'POST', origin: 'http://127.0.0.2:80' }))).toMatch(
      /another origin/,
    );
    expect(crossSiteVerdict(request({ method: 'POST', origin: 'null' }))).toMatch(/Origin: null/);
  });
});

describe('sameSecret', () => {
  it('compares equal secrets true and anything else false', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abd', 'abc')).toBe(false);
    expect(sameSecret('ab', 'abc')).toBe(false);
    expect(sameSecret(undefined, 'abc')).toBe(false);
  });
});

describe('parseTime', () => {
  it('reads ages back from now, ISO times as given, and explains anything else', () => {
    // Arrange
    const now = Date.UTC(2026, 0, 31, 12);

    // Act / Assert
    expect(parseTime('2h', now)).toBe(now - 7_200_000);
    expect(parseTime('7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseTime('2026-01-30T00:00Z', now)).toBe(Date.UTC(2026, 0, 30));
    expect(parseTime('', now)).toBeUndefined();
    expect(parseTime('soon', now)).toBeInstanceOf(Error);
  });
});

describe('readListQuery', () => {
  it('reports every invalid filter at once', () => {
    // Arrange
    const params = new URLSearchParams('status=BAD&since=later&until=never&limit=3');

    // Act
    const { problems } = readListQuery((n) => params.get(n) ?? undefined, 0);

    // Assert
    expect(problems).toHaveLength(4);
  });
});

describe('parseAction', () => {
  it('reads each action kind from form fields', () => {
    // Arrange
    const fields: Record<string, string[]> = {
      id: ['a', 'b', 'a'],
      olderThanDays: ['30'],
      name: ['n'],
    };
    const field = (n: string) => fields[n] ?? [];

    // Act / Assert
    expect(parseAction('redrive', field)).toEqual({ action: { kind: 'redrive', ids: ['a', 'b'] } });
    expect(parseAction('purge', field)).toEqual({ action: { kind: 'purge', olderThanDays: 30 } });
    expect(parseAction('pause', field)).toEqual({ action: { kind: 'pause', name: 'n' } });
  });

  it('names what is wrong with a bad action', () => {
    expect(parseAction('explode', () => [])).toEqual({
      problems: [
        'unknown action "explode"; expected one of redrive, cancel, purge, pause, resume, delete, redrive-key, release, pause-task, resume-task, pause-key, resume-key, pause-lane, resume-lane',
      ],
    });
    expect(parseAction('purge', () => ['-1'])).toMatchObject({
      problems: [expect.stringContaining('received "-1"')],
    });
    expect(parseAction('cancel', () => [])).toMatchObject({
      problems: [expect.stringContaining('select at least one')],
    });
  });
});
