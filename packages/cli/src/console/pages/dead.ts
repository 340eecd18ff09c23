/** DEAD tasks: select some to redrive or cancel, or purge old ones; every action confirms first. */
import { html } from 'hono/html';
import type { TaskListPage } from '../queries.js';
import { type Html, layout, type PageContext } from './layout.js';
import { taskTable } from './tasks.js';

/** Renders the DEAD tasks page. */
export function deadPage(ctx: PageContext, page: TaskListPage, cursor: string | undefined): Html {
  const table = taskTable(
    page.items,
    'DEAD tasks, newest first',
    ctx.readOnly ? undefined : { name: 'id' },
  );
  const next =
    page.cursor === undefined
      ? ''
      : html`<nav class="pager" aria-label="Pages"><a href="/dead?cursor=${encodeURIComponent(page.cursor)}" rel="next">Next page</a></nav>`;
  const first = cursor === undefined ? '' : html`<p><a href="/dead">First page</a></p>`;
  const body = ctx.readOnly
    ? html`${table}${first}${next}`
    : html`
<form method="get" action="/confirm" aria-label="Act on selected DEAD tasks">
${table}
${
  page.items.length === 0
    ? ''
    : html`<div class="actions">
<button type="submit" name="action" value="redrive">Redrive selected…</button>
</div>`
}
</form>
${first}${next}
<section aria-labelledby="purge">
<h2 id="purge">Purge old DEAD tasks</h2>
<form class="inline" method="get" action="/confirm">
<input type="hidden" name="action" value="purge">
<label for="purge-days">Died more than (days) ago<input id="purge-days" name="olderThanDays" type="number" min="0" max="3650" value="30" required></label>
<button type="submit" class="danger">Purge…</button>
</form>
</section>`;
  return layout(ctx, {
    title: 'DEAD tasks',
    path: '/dead',
    body: html`<p>Tasks that used up their attempts or failed permanently. A redrive sends them back with a fresh attempt budget; a task that has not started yet can be cancelled from its own page.</p>${body}`,
  });
}
