/**
 * Recurring schedules: each one's state, expression, next and recent firings with the task
 * each created, and pause, resume and delete (behind the confirmation page).
 */
import { html } from 'hono/html';
import type { ScheduleView } from '../queries.js';
import {
  type Html,
  json,
  layout,
  type PageContext,
  region,
  statusLabel,
  taskLink,
  time,
} from './layout.js';

/** The schedules' table: the region the live channel refreshes. */
export function schedulesRegion(
  ctx: PageContext,
  schedules: readonly ScheduleView[] | undefined,
  error: string | undefined,
): Html {
  if (schedules === undefined) {
    return html`<div class="notice error" role="alert">Schedules could not be read: ${error ?? ''}</div>`;
  }
  if (schedules.length === 0) return html`<p class="muted">No recurring schedules.</p>`;
  return html`<table>
<caption class="muted">Recurring schedules of the executor's group. A firing's task is <code>&lt;schedule&gt;@&lt;scheduled time&gt;</code>.</caption>
<thead><tr><th scope="col">Schedule</th><th scope="col">State</th><th scope="col">Expression</th><th scope="col">Task type and payload</th><th scope="col">Next firings</th><th scope="col">Last firings</th>${ctx.readOnly ? '' : html`<th scope="col">Actions</th>`}</tr></thead>
<tbody>${schedules.map((s) => row(ctx, s))}</tbody>
</table>`;
}

/** Renders the schedules page. */
export function schedulesPage(
  ctx: PageContext,
  schedules: readonly ScheduleView[] | undefined,
  error: string | undefined,
): Html {
  return layout(ctx, {
    title: 'Schedules',
    path: '/schedules',
    body: region('schedules', schedulesRegion(ctx, schedules, error)),
    live: true,
  });
}

function row(ctx: PageContext, view: ScheduleView): Html {
  const { summary: s, details: d } = view;
  const enabled = s.state === 'ENABLED';
  const name = encodeURIComponent(s.name);
  const tasks = `/tasks?q=${encodeURIComponent(`${s.name}@`)}&in=id`;
  return html`<tr id="schedule-${s.name}">
<th scope="row">${s.name}<br><a class="small" href="${tasks}">All its tasks</a></th>
<td>${statusLabel(s.state)}</td>
<td>${d === undefined ? '' : html`<code>${d.expression}</code><br><span class="muted">${d.timezone}</span>`}</td>
<td>${d?.taskType ?? ''}${d === undefined ? '' : json(d.payload)}</td>
<td>${nextFirings(view, enabled)}</td>
<td>${lastFirings(view)}</td>
${
  ctx.readOnly
    ? ''
    : html`<td class="row-actions"><a href="/confirm?action=${enabled ? 'pause' : 'resume'}&amp;name=${name}" aria-label="${enabled ? 'Pause' : 'Resume'} ${s.name}">${enabled ? 'Pause' : 'Resume'}…</a>
<a class="danger-link" href="/confirm?action=delete&amp;name=${name}" aria-label="Delete ${s.name}">Delete…</a></td>`
}
</tr>`;
}

function nextFirings(view: ScheduleView, enabled: boolean): Html {
  const next = view.details?.nextFirings ?? [];
  if (next.length === 0) return html`<span class="muted">none</span>`;
  return html`${enabled ? '' : html`<span class="muted">paused: it will not fire until resumed</span>`}
<ul class="firings${enabled ? '' : ' paused'}">${next.map((f) => html`<li>${time(f.at.getTime())}</li>`)}</ul>`;
}

function lastFirings(view: ScheduleView): Html {
  if (view.recent.length === 0) return html`<span class="muted">none yet</span>`;
  return html`<ul class="firings">${view.recent.map(
    ({ firing, task }) =>
      html`<li>${time(firing.at.getTime())} ${
        task === undefined
          ? html`<span class="muted">no task (paused, not delivered, or purged)</span>`
          : html`${taskLink(task.id)} ${statusLabel(task.status)}`
      }</li>`,
  )}</ul>`;
}
