/**
 * Refuses requests that another site started. A page anywhere on the web can make the
 * operator's browser open a console URL (a link, `window.open`, a form, an image): the
 * console must not act on it, show it an action to confirm, or do work for it. Browsers say
 * where a request came from in `Sec-Fetch-Site` (Fetch Metadata); older ones send `Origin`
 * on a POST. The console answers its own pages (`same-origin`) and addresses the operator
 * typed or bookmarked (`none`), and refuses the rest before any other guard runs, so a
 * refused request costs no AWS call. See docs/operations.md#console.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { html } from 'hono/html';
import { problemPage } from './pages/confirm.js';
import type { PageContext } from './pages/layout.js';
import { sameOriginPath } from './safety.js';

/** What {@link crossSiteVerdict} looks at. */
export interface RequestOrigin {
  readonly method: string;
  /** The request's path, e.g. `/confirm`. */
  readonly path: string;
  /** The `Sec-Fetch-Site` header, if sent. */
  readonly fetchSite: string | undefined;
  /** The `Origin` header, if sent. */
  readonly origin: string | undefined;
  /** The console's own origin as this request addresses it (scheme, Host). */
  readonly ownOrigin: string;
}

/** Pages that show an action to confirm: only the console's own pages may open them. */
const CONFIRMATION_PATHS: readonly string[] = ['/confirm'];

/**
 * Why a request must be refused, or undefined when it may proceed:
 * - `Sec-Fetch-Site: same-origin` proceeds;
 * - `none` (typed, bookmarked, opened from outside the browser) proceeds for a GET of a
 *   page that only shows; a confirmation or a POST needs the console's own page;
 * - `same-site` (another port of the same host, e.g. a dev server on localhost:3000) and
 *   `cross-site` are refused, whatever the method;
 * - without `Sec-Fetch-Site` (an older browser, a script), an `Origin` other than the
 *   console's own (`null` included) is refused.
 */
export function crossSiteVerdict(request: RequestOrigin): string | undefined {
  const { fetchSite, method, path } = request;
  if (fetchSite !== undefined) {
    if (fetchSite === 'same-origin') return undefined;
    if (fetchSite === 'none') {
      if (method === 'GET' && !CONFIRMATION_PATHS.includes(path)) return undefined;
      return 'an action is confirmed and taken from the console’s own pages only; this request was not opened from one (Sec-Fetch-Site: none)';
    }
    return `the request came from another site (Sec-Fetch-Site: ${fetchSite}); the console answers its own pages only`;
  }
  if (request.origin !== undefined && request.origin !== request.ownOrigin) {
    return `the request came from another origin (Origin: ${request.origin}); the console answers its own pages only`;
  }
  return undefined;
}

/**
 * The middleware: a refused request gets a 403 page saying why. For a GET of a page that
 * only shows (a link to a task from a chat message), the page offers the same address as a
 * link on the console's own origin: following it is the operator's own click.
 */
export function refuseCrossSite(page: (c: Context) => PageContext): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const why = crossSiteVerdict({
      method: c.req.method,
      path: url.pathname,
      fetchSite: c.req.header('sec-fetch-site'),
      origin: c.req.header('origin'),
      ownOrigin: url.origin,
    });
    if (why === undefined) {
      await next();
      return;
    }
    url.searchParams.delete('token');
    const here = sameOriginPath(`${url.pathname}${url.search}`, url.origin);
    const offer =
      c.req.method === 'GET' && !CONFIRMATION_PATHS.includes(url.pathname) && here !== '/'
        ? html`<p><a href="${here}">Open ${here} in the console</a></p>`
        : undefined;
    return c.html(problemPage(page(c), 'Request from another site refused', [why], offer), 403);
  };
}
