/** Recurring schedules, with pause and resume. */
import { html } from 'hono/html';
import type { ScheduleDetails, ScheduleSummary } from 'tasklane';
import { type Html, json, layout, type PageContext, statusLabel } from './layout.js';

/** Renders the schedules page; `details` holds what `client.schedules.get` returned, by name. */
export function schedulesPage(
  ctx: PageContext,
  schedules: readonly ScheduleSummary[] | undefined,
  details: ReadonlyMap<string, ScheduleDetails>,
  error: string | undefined,
): Html {
  const body =
    schedules === undefined
      ? html`<div class="notice error" role="alert">Schedules could not be read: ${error ?? ''}</div>`
      : schedules.length === 0
        ? html`<p class="muted">No recurring schedules.</p>`
        : html`<table>
<caption class="muted">Recurring schedules of the executor's group</caption>
<thead><tr><th scope="col">Schedule</th><th scope="col">State</th><th scope="col">Expression</th><th scope="col">Task type</th><th scope="col">Payload</th>${ctx.readOnly ? '' : html`<th scope="col">Action</th>`}</tr></thead>
<tbody>${schedules.map((s) => row(ctx, s, details.get(s.name)))}</tbody>
</table>`;
  return layout(ctx, { title: 'Schedules', path: '/schedules', body });
}

function row(ctx: PageContext, s: ScheduleSummary, d: ScheduleDetails | undefined): Html {
  const action = s.state === 'ENABLED' ? 'pause' : 'resume';
  const label = s.state === 'ENABLED' ? 'Pause' : 'Resume';
  return html`<tr id="schedule-${s.name}">
<th scope="row">${s.name}</th>
<td>${statusLabel(s.state)}</td>
<td>${d === undefined ? '' : html`<code>${d.expression}</code> <span class="muted">${d.timezone}</span>`}</td>
<td>${d?.taskType ?? ''}</td>
<td>${d === undefined ? '' : json(d.payload)}</td>
${
  ctx.readOnly
    ? ''
    : html`<td><a href="/confirm?action=${action}&amp;name=${encodeURIComponent(s.name)}" aria-label="${label} ${s.name}">${label}…</a></td>`
}
</tr>`;
}
