/**
 * The page frame and the small formatting helpers every page shares. Pages are server-side
 * templates built with Hono's `html` tag, which escapes every interpolated value. The
 * stylesheet and the one script are files the console serves itself (assets.ts), so the
 * Content-Security-Policy allows no inline style or script at all.
 */
import { createHash } from 'node:crypto';
import { html, raw } from 'hono/html';
import { assetPath } from '../assets.js';

/** A rendered fragment or page. */
export type Html = ReturnType<typeof html>;

/** What every page needs to know about the request. */
export interface PageContext {
  /** The CSRF token to embed in action forms. */
  readonly csrf: string;
  /** True when actions are hidden and refused. */
  readonly readOnly: boolean;
  /** Epoch ms, for ages. */
  readonly now: number;
}

const NAV = [
  { href: '/', label: 'Overview' },
  { href: '/tasks', label: 'Tasks' },
  { href: '/dead', label: 'DEAD tasks' },
  { href: '/parked', label: 'Parked keys' },
  { href: '/schedules', label: 'Schedules' },
] as const;

/** What a page adds to the frame. */
export interface PageFrame {
  readonly title: string;
  readonly path: string;
  readonly body: Html;
  /**
   * The page keeps itself up to date over the live channel (live.ts): the console's script
   * opens `/live` for this page's address and swaps its regions as they change.
   */
  readonly live?: boolean;
  /** The page draws charts: the chart library's script and stylesheet are loaded too. */
  readonly charts?: boolean;
}

/** The whole document: skip link, navigation, one `h1`, the body. */
export function layout(ctx: PageContext, page: PageFrame): Html {
  const current = NAV.find((n) =>
    n.href === '/' ? page.path === '/' : page.path.startsWith(n.href),
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · Tasklane console</title>
<link rel="stylesheet" href="${assetPath('console.css')}">
${page.charts === true ? html`<link rel="stylesheet" href="${assetPath('uplot.css')}"><script src="${assetPath('uplot.js')}" defer></script>` : ''}
<script src="${assetPath('console.js')}" defer></script>
</head>
<body${page.live === true ? raw(' data-live') : ''}>
<a class="skip" href="#main">Skip to content</a>
<header>
<p class="brand">Tasklane console</p>
<nav aria-label="Main">
<ul>${NAV.map(
    (n) =>
      html`<li><a href="${n.href}"${n === current ? raw(' aria-current="page"') : ''}>${n.label}</a></li>`,
  )}</ul>
</nav>
${ctx.readOnly ? html`<p class="badge" role="status">Read-only: actions are disabled</p>` : ''}
<div class="clock">
<button type="button" id="time-zone" class="secondary" hidden aria-pressed="false">Times in UTC</button>
<p id="live-state" class="live-state" role="status" hidden></p>
</div>
</header>
<main id="main" tabindex="-1">
<h1>${page.title}</h1>
${page.body}
</main>
</body>
</html>`;
}

/** A hidden field carrying the CSRF token; every action form includes it. */
export function csrfField(ctx: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;
}

/** A status as a coloured label (colour is never the only cue: the text is the status). */
export function statusLabel(status: string): Html {
  return html`<span class="status status-${status.toLowerCase()}">${status}</span>`;
}

/**
 * An epoch-ms time in a `<time>` element: UTC as the page is sent; the console's script
 * shows it in the browser's time zone with how long ago (or from now) it is, and keeps the
 * UTC reading in its title (the header's button switches every time on the page to UTC).
 */
export function time(ms: number | undefined): Html {
  if (ms === undefined || !Number.isFinite(ms)) return html`<span class="muted">–</span>`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)} UTC</time>`;
}

/**
 * A part of a page that the live channel replaces as it changes. `notify` regions hold a
 * selection (checkboxes) that a swap would lose: for them the page says the data changed and
 * offers a reload instead.
 */
export function region(id: string, content: Html | string, mode: 'swap' | 'notify' = 'swap'): Html {
  return html`<div data-region="${id}" data-digest="${regionDigest(content)}"${mode === 'notify' ? raw(' data-region-mode="notify"') : ''}>${content}</div>`;
}

/**
 * A short digest of a region's HTML: the page carries it and the live channel compares it,
 * so a region is sent only once it differs from what the browser shows.
 */
export function regionDigest(content: Html | string): string {
  return createHash('sha256').update(String(content)).digest('base64url').slice(0, 16);
}

/** A duration in ms, in the largest sensible unit. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 90) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = s / 60;
  if (m < 90) return `${Math.round(m)} min`;
  const h = m / 60;
  if (h < 48) return `${Math.round(h)} h`;
  return `${Math.round(h / 24)} d`;
}

/** Any JSON value, pretty-printed inside `<pre>` (escaped like every other value). */
export function json(value: unknown): Html {
  if (value === undefined) return html`<p class="muted">None.</p>`;
  return html`<pre class="json">${JSON.stringify(value, null, 2)}</pre>`;
}

/** A link to a task's page. */
export function taskLink(id: string): Html {
  return html`<a href="/tasks/${encodeURIComponent(id)}"><code>${id}</code></a>`;
}
