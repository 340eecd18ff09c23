/**
 * The console's guards, as small pure functions: which addresses count as loopback, whether
 * a bind is allowed, and constant-time token checks. The server wires them in (server.ts).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { ConfigurationError } from 'tasklane';

/** True for `localhost`, 127.0.0.0/8 and ::1 (with or without brackets). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}

/** What {@link assertBindAllowed} checks. */
export interface BindRequest {
  readonly host: string;
  readonly allowRemote: boolean;
  /** False when the operator turned the token off (`--no-auth`). */
  readonly auth: boolean;
  /** The operator's own token, when one was given (else the console makes one). */
  readonly accessToken: string | undefined;
}

/** The shortest access token accepted. */
export const MIN_ACCESS_TOKEN_LENGTH = 16;

/**
 * Checks how the console is asked to listen, reporting every problem at once:
 * - a token the operator gave must be at least {@link MIN_ACCESS_TOKEN_LENGTH} characters,
 *   and cannot go with `--no-auth`;
 * - a non-loopback bind must be asked for explicitly (`allowRemote`) and keep the token: a
 *   console reachable from the network acts with the operator's AWS credentials.
 *
 * @throws ConfigurationError naming each problem and how to fix it.
 */
export function assertBindAllowed(request: BindRequest): void {
  const problems: string[] = [];
  const loopback = isLoopbackHost(request.host);
  const token = request.accessToken;
  if (!request.auth && token !== undefined) {
    problems.push(
      'a token was given (TASKLANE_CONSOLE_TOKEN or --token-file) together with --no-auth (auth: false): drop one',
    );
  }
  if (request.auth && token !== undefined && token.length < MIN_ACCESS_TOKEN_LENGTH) {
    problems.push(
      `the access token must be at least ${MIN_ACCESS_TOKEN_LENGTH} characters; received ${token.length} characters (or give none: the console then makes one)`,
    );
  }
  if (!loopback && !request.allowRemote) {
    problems.push('pass --allow-remote (allowRemote: true) to bind beyond loopback on purpose');
  }
  if (!loopback && !request.auth) {
    problems.push('drop --no-auth (auth: false): beyond loopback the token is required');
  }
  if (problems.length === 0) return;
  const where = loopback
    ? `on "${request.host}"`
    : `on "${request.host}", which is not a loopback address`;
  throw new ConfigurationError(
    `the console will not listen ${where}: ${problems.join(', and ')}.${loopback ? '' : ' Or bind to 127.0.0.1 (the default) and use an SSH tunnel.'}`,
  );
}

/**
 * A Referer or a `next` field reduced to a path on the console's own origin, for a link or a
 * redirect that must never leave the console: another origin, or anything unreadable,
 * becomes `/`, and leading slashes collapse into one, since `//host/` in an href is a link
 * to that host.
 */
export function sameOriginPath(value: string | undefined, ownOrigin: string): string {
  if (value === undefined || value === '') return '/';
  let url: URL;
  try {
    url = new URL(value, ownOrigin);
  } catch {
    return '/';
  }
  if (url.origin !== ownOrigin) return '/';
  return `/${url.pathname.replace(/^\/+/, '')}${url.search}`;
}

/** A fresh random token (the access token, the CSRF token), URL-safe: 192 bits. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Compares two secrets in constant time; false for a missing or differently sized value. */
export function sameSecret(received: string | undefined, expected: string): boolean {
  if (received === undefined) return false;
  const a = Buffer.from(received);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
