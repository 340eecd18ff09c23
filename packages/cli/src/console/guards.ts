/**
 * The console's request guards as Hono middleware: the Host check against DNS rebinding,
 * and the CSRF and read-only checks on every POST. The cross-site refusal (cross-site.ts)
 * and the session (session.ts) run before them.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { problemPage } from './pages/confirm.js';
import type { PageContext } from './pages/layout.js';
import { isLoopbackHost, sameSecret } from './safety.js';

/** The form field that carries the CSRF token. */
export const CSRF_FIELD = '_csrf';

/** Builds the page context of a request. */
export type PageContextOf = (c: Context) => PageContext;

function refuse(
  c: Context,
  page: PageContextOf,
  status: 400 | 401 | 403,
  title: string,
  why: string,
) {
  return c.html(problemPage(page(c), title, [why]), status);
}

/**
 * On a loopback bind, refuses a request whose Host is not a loopback name: a page on another
 * site that rebinds its DNS name to 127.0.0.1 would otherwise be same-origin with the console.
 */
export function loopbackHostOnly(page: PageContextOf): MiddlewareHandler {
  return async (c, next) => {
    const host = new URL(c.req.url).hostname;
    if (!isLoopbackHost(host)) {
      return refuse(
        c,
        page,
        403,
        'Host refused',
        `the console answers on loopback names only; received Host "${host}"`,
      );
    }
    await next();
  };
}

/** Refuses every POST in read-only mode, and any POST without the right CSRF token. */
export function guardActions(
  options: { readonly readOnly: boolean; readonly csrf: string },
  page: PageContextOf,
): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST') {
      await next();
      return;
    }
    if (options.readOnly) {
      return refuse(
        c,
        page,
        403,
        'Read-only console',
        'this console was started with --read-only; restart it without the flag to act',
      );
    }
    const body = await c.req.parseBody({ all: true });
    const sent = body[CSRF_FIELD];
    if (typeof sent !== 'string' || !sameSecret(sent, options.csrf)) {
      return refuse(
        c,
        page,
        403,
        'Form expired',
        'the form had no valid CSRF token: reload the page and submit it again',
      );
    }
    await next();
  };
}
