/**
 * Parked ordering keys, by lane: the DEAD task that holds each one, with redrive (the task
 * first, in place, then the key's later tasks) and release (give up on it), both behind the
 * confirmation page. See docs/parked-keys.md.
 */
import { html } from 'hono/html';
import type { ParkedKey } from 'tasklane';
import { type Html, layout, type PageContext, region, taskLink, time } from './layout.js';

/** The parked keys' tables: the region the live channel refreshes. */
export function parkedRegion(
  ctx: PageContext,
  byLane: readonly { readonly lane: string; readonly keys: readonly ParkedKey[] }[] | undefined,
  error: string | undefined,
): Html {
  if (byLane === undefined) {
    return html`<div class="notice error" role="alert">Parked keys could not be read: ${error ?? ''}</div>`;
  }
  if (byLane.length === 0) return html`<p class="muted">No parked keys.</p>`;
  return html`${byLane.map(
    ({ lane, keys }) => html`<section aria-labelledby="lane-${lane}">
<h2 id="lane-${lane}">Lane ${lane} <span class="muted">(${keys.length} parked)</span></h2>
<table>
<thead><tr><th scope="col">Ordering key</th><th scope="col">Held by</th><th scope="col">Type</th><th scope="col">Parked</th><th scope="col">Why it died</th>${ctx.readOnly ? '' : html`<th scope="col">Actions</th>`}</tr></thead>
<tbody>${keys.map((k) => row(ctx, k))}</tbody>
</table>
</section>`,
  )}`;
}

function row(ctx: PageContext, k: ParkedKey): Html {
  const key = encodeURIComponent(k.orderingKey);
  const lane = k.lane === undefined ? '' : `&lane=${encodeURIComponent(k.lane)}`;
  return html`<tr>
<th scope="row"><a href="/tasks?q=${key}&amp;in=key">${k.orderingKey}</a></th>
<td>${taskLink(k.task.id)}</td>
<td>${k.task.type}</td>
<td>${time(k.parkedAt)}</td>
<td>${k.task.deadReason ?? k.task.lastError?.message ?? ''}</td>
${
  ctx.readOnly
    ? ''
    : html`<td class="row-actions"><a href="/confirm?action=redrive-key&amp;key=${key}" aria-label="Redrive key ${k.orderingKey}">Redrive…</a>
<a class="danger-link" href="/confirm?action=release&amp;key=${key}${lane}" aria-label="Release key ${k.orderingKey}">Release…</a></td>`
}
</tr>`;
}

/** Renders the parked keys page. */
export function parkedPage(
  ctx: PageContext,
  byLane: readonly { readonly lane: string; readonly keys: readonly ParkedKey[] }[] | undefined,
  error: string | undefined,
): Html {
  const body = html`<p>A task type with <code>onDead: 'park'</code> holds its ordering key when a task dies: the key's later tasks wait until the dead task is redriven (it runs first) or the key is released (the task stays DEAD and the later ones run). Each hold ends at the latest when its message reaches the queue's retention.</p>
${region('parked', parkedRegion(ctx, byLane, error))}`;
  return layout(ctx, { title: 'Parked keys', path: '/parked', body, live: true });
}
