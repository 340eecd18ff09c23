/**
 * The live channel: `GET /live?page=<a console address>&shown=<region:digest,…>`, a stream
 * of server-sent events that keeps one page up to date. It is a route of the console like
 * any page: the cross-site refusal, the Host check and the session run before it, so only
 * the console's own pages, signed in, can open it (docs/adr/0055-live-console.md).
 *
 * Every few seconds (each page says how often) the server reads the page's data again,
 * renders its regions with the page's own templates and sends those whose digest differs
 * from what the browser shows (`region` events); the overview also gets its charts
 * (`charts`). A failed read is reported (`problem`) and retried at the next tick. A stream
 * ends after {@link MAX_STREAM_MS} (the browser reconnects), and at most
 * {@link MAX_STREAMS} are open at once: each one reads AWS on its own.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ChartData } from './charts/chart-data.js';
import { type Html, regionDigest } from './pages/layout.js';
import { sameOriginPath } from './safety.js';

/** What the live channel reads for one page. */
export interface LiveView {
  /** How often the regions are read again, in ms. */
  readonly everyMs: number;
  /** The page's regions as they are now, by id. */
  regions(): Promise<Readonly<Record<string, Html>>>;
  /** The charts, when the page draws them, and how often they are read. */
  readonly charts?: { readonly everyMs: number; read(): Promise<ChartData> };
}

/** The live view of a console address (path and query), or undefined for a page without. */
export type LiveViews = (page: URL) => LiveView | undefined;

/** A stream ends after this long; the browser's EventSource opens another. */
export const MAX_STREAM_MS = 30 * 60_000;

/** At most this many streams at once, across browsers and tabs. */
export const MAX_STREAMS = 16;

/** How long the browser waits before reconnecting, in ms (the SSE `retry` field). */
const RETRY_MS = 3000;

/** Reads the `shown` parameter: region ids and the digests the page was sent with. */
export function parseShown(value: string | undefined): Map<string, string> {
  const shown = new Map<string, string>();
  for (const pair of (value ?? '').split(',')) {
    const at = pair.lastIndexOf(':');
    if (at > 0) shown.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return shown;
}

/** The `/live` handler over `views`. */
export function liveHandler(views: LiveViews): (c: Context) => Response | Promise<Response> {
  let open = 0;
  return (c) => {
    const own = new URL(c.req.url).origin;
    const page = new URL(sameOriginPath(c.req.query('page'), own), own);
    const view = views(page);
    if (view === undefined) return c.text(`no live view of ${page.pathname}`, 404);
    if (open >= MAX_STREAMS) {
      return c.text(`${MAX_STREAMS} live pages are open already: close some, then reload`, 429);
    }
    const shown = parseShown(c.req.query('shown'));
    open += 1;
    return streamSSE(c, async (stream) => {
      let closed = false;
      stream.onAbort(() => {
        closed = true;
      });
      const ends = Date.now() + MAX_STREAM_MS;
      let chartsDue = 0;
      try {
        await stream.writeSSE({ event: 'hello', data: '{}', retry: RETRY_MS });
        while (!closed && Date.now() < ends) {
          try {
            const regions = await view.regions();
            for (const [id, content] of Object.entries(regions)) {
              const digest = regionDigest(content);
              if (shown.get(id) === digest) continue;
              shown.set(id, digest);
              await stream.writeSSE({
                event: 'region',
                data: JSON.stringify({ id, html: String(content), digest }),
              });
            }
            if (view.charts !== undefined && Date.now() >= chartsDue) {
              chartsDue = Date.now() + view.charts.everyMs;
              await stream.writeSSE({
                event: 'charts',
                data: JSON.stringify(await view.charts.read()),
              });
            }
          } catch (err) {
            await stream.writeSSE({
              event: 'problem',
              data: JSON.stringify({
                message: `${(err as Error).name}: ${(err as Error).message}`,
              }),
            });
          }
          await stream.sleep(view.everyMs);
        }
      } finally {
        open -= 1;
      }
    });
  };
}
