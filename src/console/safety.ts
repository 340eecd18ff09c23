/**
 * The console's guards, as small pure functions: which addresses count as loopback, whether
 * a bind is allowed, and constant-time token checks. The server wires them in (server.ts).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { ConfigurationError } from '../errors.js';

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
  readonly accessToken: string | undefined;
}

/** The shortest access token accepted for a non-loopback bind. */
export const MIN_ACCESS_TOKEN_LENGTH = 16;

/**
 * Refuses a non-loopback bind unless it was asked for explicitly (`allowRemote`) AND an
 * access token guards it: a console reachable from the network acts with the operator's
 * AWS credentials.
 *
 * @throws ConfigurationError naming what is missing and how to supply it.
 */
export function assertBindAllowed(request: BindRequest): void {
  if (isLoopbackHost(request.host)) return;
  const problems: string[] = [];
  if (!request.allowRemote) {
    problems.push('pass --allow-remote (allowRemote: true) to bind beyond loopback on purpose');
  }
  const token = request.accessToken ?? '';
  if (token.length < MIN_ACCESS_TOKEN_LENGTH) {
    problems.push(
      `set an access token of at least ${MIN_ACCESS_TOKEN_LENGTH} characters ` +
        `(--token or TASKLANE_CONSOLE_TOKEN)${token === '' ? '' : `; received ${token.length} characters`}`,
    );
  }
  if (problems.length === 0) return;
  throw new ConfigurationError(
    `the console will not listen on "${request.host}", which is not a loopback address: ` +
      `${problems.join(', and ')}. Or bind to 127.0.0.1 (the default) and use an SSH tunnel.`,
  );
}

/** A fresh random token (for CSRF), URL-safe. */
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
