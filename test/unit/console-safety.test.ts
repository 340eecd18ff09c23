import { describe, expect, it } from 'vitest';
import { parseAction } from '../../src/console/actions.js';
import { assertBindAllowed, isLoopbackHost, sameSecret } from '../../src/console/safety.js';
import { parseTime, readListQuery } from '../../src/console/server.js';
import { ConfigurationError } from '../../src/errors.js';

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
  it('allows loopback with no flag and no token', () => {
    expect(() =>
      assertBindAllowed({ host: '127.0.0.1', allowRemote: false, accessToken: undefined }),
    ).not.toThrow();
  });

  it('refuses a remote bind with a short token, naming both fixes it lacks', () => {
    // Act
    const act = () => assertBindAllowed({ host: '0.0.0.0', allowRemote: false, accessToken: 'x' });

    // Assert
    expect(act).toThrow(ConfigurationError);
    expect(act).toThrow(/--allow-remote .* at least 16 characters .*received 1 characters/);
  });

  it('allows a remote bind with the flag and a long token', () => {
    expect(() =>
      assertBindAllowed({ host: '::', allowRemote: true, accessToken: 'x'.repeat(16) }),
    ).not.toThrow();
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
      problems: ['unknown action "explode"; expected one of redrive, cancel, purge, pause, resume'],
    });
    expect(parseAction('purge', () => ['-1'])).toMatchObject({
      problems: [expect.stringContaining('received "-1"')],
    });
    expect(parseAction('cancel', () => [])).toMatchObject({
      problems: [expect.stringContaining('select at least one')],
    });
  });
});
