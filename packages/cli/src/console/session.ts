/**
 * Who may use the console: whoever holds its access token. `startConsole` makes a fresh
 * token at each start (or takes the operator's) and prints it once, in the console's URL.
 * The browser trades it for a session cookie; scripts send it as a bearer token.
 *
 * The cookie never carries the token: its value is an HMAC of the token under a key made at
 * start, so it is good for this run of this console only, and a copied cookie tells nothing
 * about a token kept in a file for the next run. The console keeps no token either, only
 * its SHA-256 and the cookie value to expect, and compares both in constant time.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { PageContext } from './pages/layout.js';
import { loginPage } from './pages/login.js';
import { sameOriginPath } from './safety.js';

/** The path the sign-in form posts to. */
export const LOGIN_PATH = '/login';

/** The cookie's name on a port: browsers share cookies between the ports of one host. */
export function sessionCookieName(port: string): string {
  return `tasklane_console_${port === '' ? 'default' : port}`;
}

/** The secrets of one run of the console: the token's digest and the session value. */
export class ConsoleSession {
  private readonly tokenDigest: Buffer;
  private readonly session: string;

  constructor(token: string) {
    this.tokenDigest = digest(token);
    this.session = createHmac('sha256', randomBytes(32))
      .update(`tasklane-console-session\0${token}`)
      .digest('base64url');
  }

  /** True when `received` is the access token. */
  acceptsToken(received: string | undefined): boolean {
    return received !== undefined && timingSafeEqual(digest(received), this.tokenDigest);
  }

  /** True when `received` is this run's session value. */
  acceptsSession(received: string | undefined): boolean {
    return received !== undefined && timingSafeEqual(digest(received), digest(this.session));
  }

  /** The value the session cookie carries. */
  get cookieValue(): string {
    return this.session;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Lets a request through when it carries the session cookie or `Authorization: Bearer
 * <token>`. Otherwise:
 * - `?token=<token>` on any page sets the cookie and redirects to the same page without it,
 *   so the token leaves the address bar;
 * - a POST to {@link LOGIN_PATH} with the token in the form does the same (for a token kept
 *   in a file or a variable, typed or pasted in);
 * - anything else gets the sign-in page (401), which does no AWS call.
 * The cookie is HttpOnly and SameSite=Strict, and Secure when the request came over HTTPS;
 * see docs/operations.md#console for why a plain-HTTP loopback console cannot ask for Secure.
 */
export function requireSession(
  session: ConsoleSession,
  page: (c: Context) => PageContext,
): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const name = sessionCookieName(url.port);
    const signIn = (to: string) => {
      setCookie(c, name, session.cookieValue, {
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
        secure: url.protocol === 'https:',
      });
      const target = sameOriginPath(to, url.origin);
      const onLogin = new URL(target, url.origin).pathname === LOGIN_PATH;
      return c.redirect(onLogin ? '/' : target, 303);
    };
    if (c.req.method === 'POST' && url.pathname === LOGIN_PATH) {
      const form = await c.req.parseBody();
      const back = typeof form.next === 'string' ? form.next : '/';
      if (typeof form.token === 'string' && session.acceptsToken(form.token)) return signIn(back);
      return c.html(loginPage(page(c), sameOriginPath(back, url.origin), 'wrong'), 401);
    }
    const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (session.acceptsSession(getCookie(c, name)) || session.acceptsToken(bearer)) {
      await next();
      return;
    }
    const query = c.req.query('token');
    url.searchParams.delete('token');
    const here = `${url.pathname}${url.search}`;
    if (query !== undefined && session.acceptsToken(query)) return signIn(here);
    const why = query === undefined ? 'missing' : 'wrong';
    return c.html(loginPage(page(c), sameOriginPath(here, url.origin), why), 401);
  };
}
