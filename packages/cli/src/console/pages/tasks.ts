/** The task list (filtered, paged, newest first) and one task's page. */
import { html } from 'hono/html';
import type { TaskRecord } from 'tasklane';
import { DEFAULT_LANE, TaskStatus } from 'tasklane';
import { PAUSABLE } from '../pause-actions.js';
import { STATUSES, type TaskListPage } from '../queries.js';
import { recordProblems } from '../record-check.js';
import { SEARCH_FIELDS, type SearchField, type SearchPage } from '../search.js';
import {
  duration,
  type Html,
  json,
  layout,
  type PageContext,
  region,
  statusLabel,
  taskLink,
  time,
} from './layout.js';
import { timeline } from './timeline.js';

/** The list's query as typed by the user, echoed back into the form. */
export interface ListQuery {
  /** The search text (search.ts), and where to look for it. */
  readonly q: string;
  readonly in: SearchField;
  readonly status: string;
  readonly type: string;
  readonly key: string;
  readonly since: string;
  readonly until: string;
  readonly limit: number;
  readonly cursor: string | undefined;
}

/** Page sizes offered. */
export const PAGE_SIZES = [25, 50, 100] as const;

/** Renders the task list with its filter form; `problems` lists invalid filters. */
export function taskListPage(
  ctx: PageContext,
  query: ListQuery,
  page: SearchPage | undefined,
  problems: readonly string[],
): Html {
  const body = html`
<form class="filters" method="get" action="/tasks" role="search" aria-label="Search and filter tasks">
<div class="search">
<label for="f-q">Search<input id="f-q" name="q" type="search" value="${query.q}" size="34" placeholder="a task id, type, ordering key or error text" aria-describedby="search-help"></label>
<span class="field"><label for="f-in">Search in</label><select id="f-in" name="in">${SEARCH_FIELDS.map(
    (f) =>
      html`<option value="${f}"${query.in === f ? ' selected' : ''}>${SEARCH_LABELS[f]}</option>`,
  )}</select></span>
</div>
<p id="search-help" class="muted help">An id finds its task, and ids that start with it (a schedule's firings: <code>name@</code>); a type or an ordering key matches exactly; error text matches the last error and the dead reason, in any case.</p>
<label for="f-status">Status
<select id="f-status" name="status">
<option value="">Any</option>
${STATUSES.map((s) => html`<option value="${s}"${query.status === s ? ' selected' : ''}>${s}</option>`)}
</select></label>
<label for="f-type">Type<input id="f-type" name="type" value="${query.type}" size="16"></label>
<label for="f-key">Ordering key<input id="f-key" name="key" value="${query.key}" size="16"></label>
<label for="f-since">Since<input id="f-since" name="since" value="${query.since}" size="18" placeholder="2h or 2026-01-31T09:00Z" aria-describedby="time-help"></label>
<label for="f-until">Until<input id="f-until" name="until" value="${query.until}" size="18" placeholder="30m or ISO time" aria-describedby="time-help"></label>
<label for="f-limit">Per page
<select id="f-limit" name="limit">${PAGE_SIZES.map(
    (n) => html`<option value="${n}"${query.limit === n ? ' selected' : ''}>${n}</option>`,
  )}</select></label>
<button type="submit">Apply filters</button>
<a href="/tasks">Clear</a>
<p id="time-help" class="muted help">Since and until: an age (30m, 2h, 7d) or an ISO time, compared with the task's last status change; newest first.</p>
</form>
${listedKey(query) === undefined || ctx.readOnly ? '' : html`<p class="actions">Ordering key <code>${listedKey(query)}</code>: ${keyActions(ctx, listedKey(query) ?? '')}</p>`}
${problems.length > 0 ? html`<div class="notice error" role="alert"><p>Invalid filters:</p><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul></div>` : ''}
${page === undefined ? '' : region('task-list', taskListRegion(ctx, query, page), selectable(ctx, query, page) ? 'notify' : 'swap')}`;
  return layout(ctx, { title: 'Tasks', path: '/tasks', body, live: page !== undefined });
}

/** The ordering key the list is narrowed to (its filter, or a search in keys), if any. */
function listedKey(query: ListQuery): string | undefined {
  if (query.key !== '') return query.key;
  return query.in === 'key' && query.q !== '' ? query.q : undefined;
}

const SEARCH_LABELS: Readonly<Record<SearchField, string>> = {
  any: 'Any field',
  id: 'Id',
  type: 'Type',
  key: 'Ordering key',
  error: 'Error',
};

/** The list, its search note and its pager: the region the live channel refreshes. */
export function taskListRegion(ctx: PageContext, query: ListQuery, page: SearchPage): Html {
  const searched =
    page.searched === undefined
      ? ''
      : html`<p class="muted">Searched the ${page.searched} newest tasks matching the filters${page.cursor === undefined ? '' : '; the next page searches older ones'}.</p>`;
  return html`${searched}${listBody(ctx, query, page)}${pager(query, page.cursor)}`;
}

function selectable(ctx: PageContext, query: ListQuery, page: TaskListPage): boolean {
  return !ctx.readOnly && CANCELLABLE.includes(query.status as TaskStatus) && page.items.length > 0;
}

/**
 * The list's table. Filtered to a status that can still be cancelled, its rows can be
 * selected and cancelled (after the confirmation step).
 */
function listBody(ctx: PageContext, query: ListQuery, page: TaskListPage): Html {
  if (!selectable(ctx, query, page)) return taskTable(page.items, 'Tasks matching the filters');
  return html`<form method="get" action="/confirm" aria-label="Act on selected tasks">
${taskTable(page.items, 'Tasks matching the filters', { name: 'id' })}
<div class="actions">${
    PAUSABLE.includes(query.status as TaskStatus)
      ? html`<button type="submit" name="action" value="pause-task">Pause selected…</button> `
      : query.status === TaskStatus.PAUSED
        ? html`<button type="submit" name="action" value="resume-task">Resume selected…</button> `
        : ''
  }<button type="submit" name="action" value="cancel" class="danger">Cancel selected…</button></div>
</form>`;
}

/** A table of tasks; `caption` names it for screen readers. */
export function taskTable(
  items: readonly TaskRecord[],
  caption: string,
  select?: { readonly name: string },
): Html {
  if (items.length === 0) return html`<p class="muted">No tasks match.</p>`;
  return html`<table>
<caption class="muted">${caption} (${items.length} shown)</caption>
<thead><tr>${select ? html`<th scope="col"><span class="muted">Select</span></th>` : ''}<th scope="col">Task</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Key</th><th scope="col" class="num">Attempt</th><th scope="col">Created</th><th scope="col">Updated</th></tr></thead>
<tbody>${items.map((r) =>
    recordProblems(r).length > 0
      ? malformedRow(r, select === undefined ? 7 : 8)
      : html`<tr>${
          select
            ? html`<td><input type="checkbox" name="${select.name}" value="${r.id}" id="sel-${r.id}" aria-label="Select ${r.id}"></td>`
            : ''
        }<td>${taskLink(r.id)}</td><td>${r.type}</td><td>${statusLabel(r.status)}</td><td>${r.orderingKey ?? ''}</td><td class="num">${r.attempt}/${r.maxAttempts}</td><td>${time(r.createdAt)}</td><td>${time(r.updatedAt)}</td></tr>`,
  )}</tbody>
</table>`;
}

/**
 * A list row for a record the pages cannot show (record-check.ts): its id, when it is a
 * string, links to its page, which says what is wrong.
 */
export function malformedRow(r: TaskRecord, columns: number): Html {
  const id = typeof r.id === 'string' ? taskLink(r.id) : html`<span class="muted">no id</span>`;
  return html`<tr><td>${id}</td><td colspan="${columns - 1}"><span class="muted">malformed record: open it to see what is wrong</span></td></tr>`;
}

function pager(query: ListQuery, cursor: string | undefined): Html {
  const params = new URLSearchParams();
  for (const name of ['q', 'status', 'type', 'key', 'since', 'until'] as const) {
    if (query[name] !== '') params.set(name, query[name]);
  }
  if (query.q !== '') params.set('in', query.in);
  params.set('limit', String(query.limit));
  const first = `/tasks?${params}`;
  if (cursor !== undefined) params.set('cursor', cursor);
  return pagerNav(
    query.cursor === undefined ? undefined : first,
    cursor === undefined ? undefined : `/tasks?${params}`,
  );
}

/**
 * The pager: "Next page" as a button-styled link, where there is one, and "First page" once
 * past the first; "Last page" says there is no next.
 */
export function pagerNav(first: string | undefined, next: string | undefined): Html {
  return html`<nav class="pager" aria-label="Pages">
${first === undefined ? '' : html`<a class="button secondary" href="${first}">First page</a>`}
${next === undefined ? html`<span class="muted">Last page</span>` : html`<a class="button" href="${next}" rel="next">Next page →</a>`}
</nav>`;
}

const CANCELLABLE: readonly TaskStatus[] = [
  TaskStatus.WAITING,
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  // Sleeping, waiting for a signal, or paused: cancelled at once too.
  TaskStatus.SUSPENDED,
  TaskStatus.PAUSED,
];

/**
 * One task's parts that the live channel keeps up to date, by region id: its status and
 * actions, facts, progress, timeline, result and error.
 */
export function taskRegions(ctx: PageContext, r: TaskRecord): Record<string, Html> {
  const running = r.status === TaskStatus.RUNNING;
  return {
    'task-head': html`<p>${statusLabel(r.status)} <span class="muted">${r.type}</span></p>
${ctx.readOnly ? '' : taskActions(r)}`,
    'task-facts': html`<dl class="facts">
<dt>Id</dt><dd><code>${r.id}</code></dd>
<dt>Type</dt><dd><a href="/tasks?q=${encodeURIComponent(r.type)}&amp;in=type">${r.type}</a></dd>
<dt>Lane</dt><dd>${r.lane ?? DEFAULT_LANE}</dd>
<dt>Ordering key</dt><dd>${r.orderingKey === undefined ? html`<span class="muted">none</span>` : html`<a href="/tasks?q=${encodeURIComponent(r.orderingKey)}&amp;in=key">${r.orderingKey}</a> ${keyActions(ctx, r.orderingKey)}`}</dd>
<dt>Created</dt><dd>${time(r.createdAt)}</dd>
<dt>Updated</dt><dd>${time(r.updatedAt)}</dd>
${r.runAt === undefined ? '' : html`<dt>Runs at</dt><dd>${time(r.runAt)}</dd>`}
${waitFacts(r)}
${r.debounce === undefined ? '' : html`<dt>Debounce</dt><dd>key <code>${r.debounce.key}</code> (${r.debounce.mode}), ${r.debounce.absorbed} enqueue(s) absorbed; the window ends at its run time</dd>`}
<dt>Finished</dt><dd>${time(r.finishedAt)}</dd>
<dt>Worker</dt><dd>${r.workerId ?? html`<span class="muted">none</span>`}</dd>
${r.deadReason === undefined ? '' : html`<dt>Dead reason</dt><dd>${r.deadReason}</dd>`}
${r.parents === undefined ? '' : html`<dt>Parents</dt><dd>${r.parents.map((id, n) => html`${n === 0 ? '' : ', '}${taskLink(id)}`)}${r.status === TaskStatus.WAITING ? html` <span class="muted">(waiting on ${r.waitingOn ?? 0}; onParentDead ${r.onParentDead ?? 'cancel'})</span>` : ''}</dd>`}
${r.dependents === undefined ? '' : html`<dt>Dependents</dt><dd>${r.dependents.map((id, n) => html`${n === 0 ? '' : ', '}${taskLink(id)}`)}</dd>`}
</dl>`,
    'task-progress': html`<dl class="facts">
<dt><label for="attempts">Attempts</label></dt><dd><progress id="attempts" max="${r.maxAttempts}" value="${r.attempt}">${r.attempt} of ${r.maxAttempts}</progress> ${r.attempt} of ${r.maxAttempts}</dd>
<dt>Heartbeats</dt><dd>${r.heartbeats}${r.lastHeartbeatAt === undefined ? '' : html`, last ${time(r.lastHeartbeatAt)}`}</dd>
${running ? html`<dt>Lease expires</dt><dd>${time(r.leaseExpiresAt)}</dd>` : ''}
${r.progressAt === undefined ? '' : html`<dt>Reported</dt><dd>${json(r.progress)} <span class="muted">${time(r.progressAt)}</span></dd>`}
${r.cancelRequested ? html`<dt>Cancel requested</dt><dd>${time(r.cancelRequestedAt)}; its worker stops it at its next heartbeat</dd>` : ''}
${r.finishedAt === undefined ? '' : html`<dt>Total time</dt><dd>${duration(r.finishedAt - r.createdAt)}</dd>`}
</dl>`,
    'task-history': timeline(r),
    'task-result': json(r.result),
    'task-error':
      r.lastError === undefined
        ? html`<p class="muted">None.</p>`
        : html`<p><strong>${r.lastError.name}</strong>: ${r.lastError.message}</p>`,
  };
}

/** One task: its facts, progress, actions, history timeline, payload, result and error. */
export function taskDetailPage(ctx: PageContext, r: TaskRecord): Html {
  const parts = taskRegions(ctx, r);
  const part = (id: string) => region(id, parts[id] ?? '');
  const body = html`
${part('task-head')}
<section aria-labelledby="facts">
<h2 id="facts">Record</h2>
${part('task-facts')}
</section>
<section aria-labelledby="progress">
<h2 id="progress">Progress</h2>
${part('task-progress')}
</section>
<section aria-labelledby="history">
<h2 id="history">History</h2>
${part('task-history')}
</section>
<section aria-labelledby="payload"><h2 id="payload">Payload</h2>${json(r.payload)}</section>
<section aria-labelledby="result"><h2 id="result">Result</h2>${part('task-result')}</section>
<section aria-labelledby="error"><h2 id="error">Last error</h2>${part('task-error')}</section>`;
  return layout(ctx, { title: `Task ${r.id}`, path: '/tasks/', body, live: true });
}

function taskActions(r: TaskRecord): Html {
  const id = encodeURIComponent(r.id);
  if (r.status === TaskStatus.DEAD) {
    return html`<p class="actions"><a href="/confirm?action=redrive&amp;id=${id}">Redrive this task…</a></p>`;
  }
  const running = r.status === TaskStatus.RUNNING;
  const links: Html[] = [];
  // Pause and resume (docs/adr/0048-durable-sleep-signals-pause.md): on a RUNNING task a
  // pause is a request its run honours; a pause request not honoured yet can be taken back.
  if (PAUSABLE.includes(r.status)) {
    links.push(html`<a href="/confirm?action=pause-task&amp;id=${id}">Pause this task…</a>`);
  } else if (running && !r.pauseRequested && !r.cancelRequested) {
    links.push(
      html`<a href="/confirm?action=pause-task&amp;id=${id}">Ask this task to pause…</a> <span class="muted">(it is running: it pauses at its next step, checkpoint or heartbeat)</span>`,
    );
  }
  if (r.status === TaskStatus.PAUSED || (running && r.pauseRequested === true)) {
    links.push(
      html`<a href="/confirm?action=resume-task&amp;id=${id}">${running ? 'Take back the pause request…' : 'Resume this task…'}</a>`,
    );
  }
  if (CANCELLABLE.includes(r.status) || (running && !r.cancelRequested)) {
    links.push(html`<a href="/confirm?action=cancel&amp;id=${id}">Cancel this task…</a>`);
  }
  if (links.length === 0) return html``;
  return html`<p class="actions">${links.map((l, n) => html`${n === 0 ? '' : ' · '}${l}`)}</p>`;
}

/**
 * What a SUSPENDED or PAUSED task waits for, as facts: a sleep's wake time, a signal wait's
 * name and timeout, the status a resume puts a paused task back to, a pending pause request.
 */
function waitFacts(r: TaskRecord): Html {
  const wait = r.wait;
  const parts: Html[] = [];
  if (
    wait !== undefined &&
    (r.status === TaskStatus.SUSPENDED || r.pausedFrom === TaskStatus.SUSPENDED)
  ) {
    parts.push(
      wait.kind === 'sleep'
        ? html`<dt>Sleeping</dt><dd><code>${wait.name}</code>, wakes ${time(wait.until)}</dd>`
        : html`<dt>Waiting for signal</dt><dd><code>${wait.name}</code>${
            wait.until === undefined ? html`, no timeout` : html`, times out ${time(wait.until)}`
          }${r.woken === true ? html` <span class="muted">(the signal has come: it is due)</span>` : ''}</dd>`,
    );
  }
  if (r.status === TaskStatus.PAUSED) {
    parts.push(
      html`<dt>Paused</dt><dd>resumes to ${statusLabel(r.pausedFrom ?? TaskStatus.PENDING)}</dd>`,
    );
  }
  if (r.pauseRequested === true) {
    parts.push(
      html`<dt>Pause requested</dt><dd>${time(r.pauseRequestedAt)}; its run ends PAUSED at its next step, checkpoint or heartbeat</dd>`,
    );
  }
  return html`${parts}`;
}

/** Pause and resume of the task's ordering key, after the confirmation step. */
export function keyActions(ctx: PageContext, key: string): Html {
  if (ctx.readOnly) return html``;
  const k = encodeURIComponent(key);
  return html`<span class="key-actions"><a href="/confirm?action=pause-key&amp;key=${k}">Pause key…</a> · <a href="/confirm?action=resume-key&amp;key=${k}">Resume key…</a></span>`;
}

/**
 * A task whose stored record the console cannot show: what is wrong with it, field by
 * field. Redrive and purge still go by id, from the CLI.
 */
export function malformedTaskPage(ctx: PageContext, id: string, problems: readonly string[]): Html {
  const body = html`<div class="notice error" role="alert"><p>The stored record of <code>${id}</code> is malformed, so this page cannot show it:</p><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul></div>
<p>Something other than Tasklane wrote this item, or changed it: a producer's role may write any attribute of the table (see the security guide). <code>tasklane show ${id} --json</code> prints what the record holds.</p>
<p><a href="/tasks">All tasks</a></p>`;
  return layout(ctx, { title: 'Malformed task record', path: '/tasks/', body });
}

/** The 404 page for an unknown task id. */
export function taskMissingPage(ctx: PageContext, id: string): Html {
  const body = html`<p>No task has the id <code>${id}</code>. It may have been purged, or the id is mistyped.</p><p><a href="/tasks">All tasks</a></p>`;
  return layout(ctx, { title: 'Task not found', path: '/tasks/', body });
}
