/** The overview: counts by status and type, the dead-letter queue, recent DEAD tasks, schedules. */
import { html } from 'hono/html';
import type { LaneState, ScheduleSummary } from 'tasklane';
import type { ChartData } from '../charts/chart-data.js';
import { type Overview, STATUSES } from '../queries.js';
import { recordProblems } from '../record-check.js';
import { chartsSection } from './charts.js';
import {
  duration,
  type Html,
  layout,
  type PageContext,
  region,
  statusLabel,
  taskLink,
  time,
} from './layout.js';
import { malformedRow } from './tasks.js';

/** The overview's parts that the live channel keeps up to date, by region id. */
export function overviewRegions(ctx: PageContext, data: Overview): Record<string, Html> {
  const total = STATUSES.reduce((sum, s) => sum + data.byStatus[s], 0);
  return {
    counts: html`<h2 id="by-status">Tasks by status <span class="muted">(${total} in all)</span></h2>
<ul class="cards">${STATUSES.map(
      (s) =>
        html`<li><a href="/tasks?status=${s}"><span class="n">${data.byStatus[s]}</span>${statusLabel(s)}</a></li>`,
    )}</ul>`,
    dlq:
      data.deadLetters === undefined
        ? html`<p class="muted">The dead-letter queue could not be read: ${data.deadLettersError ?? ''}</p>`
        : html`<dl class="facts">
<dt>Messages</dt><dd>${data.deadLetters.depth}</dd>
<dt>Oldest message</dt><dd>${data.deadLetters.oldestAgeMs === undefined ? 'none' : `${duration(data.deadLetters.oldestAgeMs)} old`}</dd>
</dl>${laneDeadLetters(data)}`,
    'by-type': byTypeTable(data),
    'recent-dead': recentDead(data),
    'schedule-list': schedulesSummary(data.schedules, data.schedulesError),
    lanes: laneTable(ctx, data.lanes, data.lanesError),
  };
}

/** Renders the overview page: the figures, then the charts of the last hour. */
export function overviewPage(
  ctx: PageContext,
  data: Overview,
  charts: { readonly data: ChartData | undefined; readonly problem: string | undefined },
): Html {
  const r = overviewRegions(ctx, data);
  const body = html`
<section aria-labelledby="by-status">${region('counts', r.counts ?? '')}</section>
${chartsSection(charts.data, charts.problem)}
<section aria-labelledby="lanes">
<h2 id="lanes">Lanes</h2>
${region('lanes', r.lanes ?? '')}
</section>
<section aria-labelledby="dlq">
<h2 id="dlq">Dead-letter queue</h2>
${region('dlq', r.dlq ?? '')}
</section>
<section aria-labelledby="by-type">
<h2 id="by-type">Tasks by type</h2>
${region('by-type', r['by-type'] ?? '')}
</section>
<section aria-labelledby="recent-dead">
<h2 id="recent-dead">Recent DEAD tasks</h2>
${region('recent-dead', r['recent-dead'] ?? '')}
</section>
<section aria-labelledby="schedules">
<h2 id="schedules">Schedules</h2>
${region('schedule-list', r['schedule-list'] ?? '')}
</section>`;
  return layout(ctx, { title: 'Overview', path: '/', body, live: true, charts: true });
}

/**
 * Each lane, paused or running, who changed it last, when and why, with its pause or resume
 * (through the confirmation page; none in read-only mode).
 */
function laneTable(
  ctx: PageContext,
  lanes: readonly LaneState[] | undefined,
  error: string | undefined,
): Html {
  if (lanes === undefined)
    return html`<p class="muted">Lane states unavailable: ${error ?? ''}</p>`;
  return html`<table>
<thead><tr><th scope="col">Lane</th><th scope="col">State</th><th scope="col">Since</th><th scope="col">By</th><th scope="col">Reason</th>${ctx.readOnly ? '' : html`<th scope="col">Actions</th>`}</tr></thead>
<tbody>${lanes.map(
    (l) =>
      html`<tr><th scope="row">${l.lane}</th><td>${statusLabel(l.paused ? 'PAUSED' : 'RUNNING')}</td><td>${time(l.changedAt)}</td><td>${l.principal ?? ''}</td><td>${l.paused ? (l.reason ?? '') : ''}</td>${
        ctx.readOnly
          ? ''
          : html`<td class="row-actions"><a href="/confirm?action=${l.paused ? 'resume' : 'pause'}-lane&amp;lane=${encodeURIComponent(l.lane)}" aria-label="${l.paused ? 'Resume' : 'Pause'} lane ${l.lane}">${l.paused ? 'Resume lane…' : 'Pause lane…'}</a></td>`
      }</tr>`,
  )}</tbody>
</table>`;
}

function recentDead(data: Overview): Html {
  if (data.recentDead.length === 0) return html`<p class="muted">No DEAD tasks.</p>`;
  return html`<table>
<caption class="muted">Newest first; <a href="/dead">all DEAD tasks</a></caption>
<thead><tr><th scope="col">Task</th><th scope="col">Type</th><th scope="col">Died</th><th scope="col">Reason</th></tr></thead>
<tbody>${data.recentDead.map((r) =>
    recordProblems(r).length > 0
      ? malformedRow(r, 4)
      : html`<tr><td>${taskLink(r.id)}</td><td>${r.type}</td><td>${time(r.finishedAt ?? r.updatedAt)}</td><td>${r.deadReason ?? r.lastError?.message ?? ''}</td></tr>`,
  )}</tbody>
</table>`;
}

/** Each lane's DLQ, when the executor has lanes: a busy lane's dead letters stand out. */
function laneDeadLetters(data: Overview): Html | string {
  const lanes = data.deadLetters?.byLane;
  if (lanes === undefined) return '';
  return html`<table>
<caption class="muted">Per lane</caption>
<thead><tr><th scope="col">Lane</th><th scope="col" class="num">Messages</th><th scope="col">Oldest message</th></tr></thead>
<tbody>${lanes.map(
    (l) =>
      html`<tr><th scope="row">${l.lane}</th><td class="num">${l.depth}</td><td>${l.oldestAgeMs === undefined ? 'none' : `${duration(l.oldestAgeMs)} old`}</td></tr>`,
  )}</tbody>
</table>`;
}

function byTypeTable(data: Overview): Html {
  if (data.byType.length === 0) return html`<p class="muted">No tasks yet.</p>`;
  return html`<table>
<thead><tr><th scope="col">Type</th>${STATUSES.map((s) => html`<th scope="col" class="num">${s}</th>`)}</tr></thead>
<tbody>${data.byType.map(
    (t) =>
      html`<tr><th scope="row"><a href="/tasks?type=${encodeURIComponent(t.type)}">${t.type}</a></th>${STATUSES.map(
        (s) => html`<td class="num${t.counts[s] ? '' : ' muted'}">${t.counts[s] ?? 0}</td>`,
      )}</tr>`,
  )}</tbody>
</table>`;
}

function schedulesSummary(
  schedules: readonly ScheduleSummary[] | undefined,
  error: string | undefined,
): Html {
  if (schedules === undefined)
    return html`<p class="muted">Schedules unavailable: ${error ?? ''}</p>`;
  if (schedules.length === 0) return html`<p class="muted">No recurring schedules.</p>`;
  return html`<ul>${schedules.map(
    (s) =>
      html`<li><a href="/schedules#schedule-${s.name}">${s.name}</a> ${statusLabel(s.state)}</li>`,
  )}</ul>`;
}
