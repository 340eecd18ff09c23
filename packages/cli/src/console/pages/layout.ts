/**
 * The page frame and the small formatting helpers every page shares. Pages are server-side
 * templates built with Hono's `html` tag, which escapes every interpolated value; `raw` is
 * used only for the constant stylesheet below.
 */
import { html, raw } from 'hono/html';
import { STYLESHEET } from './style.js';

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
  { href: '/schedules', label: 'Schedules' },
] as const;

/** The whole document: skip link, navigation, one `h1`, the body. */
export function layout(
  ctx: PageContext,
  page: { readonly title: string; readonly path: string; readonly body: Html },
): Html {
  const current = NAV.find((n) =>
    n.href === '/' ? page.path === '/' : page.path.startsWith(n.href),
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · Tasklane console</title>
<style>${raw(STYLESHEET)}</style>
</head>
<body>
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

/** An epoch-ms time as an ISO string in a `<time>` element. */
export function time(ms: number | undefined): Html {
  if (ms === undefined || !Number.isFinite(ms)) return html`<span class="muted">–</span>`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)}</time>`;
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
