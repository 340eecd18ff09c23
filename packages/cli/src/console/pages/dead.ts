/** DEAD tasks: select some to redrive or cancel, or purge old ones; every action confirms first. */
import { html } from 'hono/html';
import type { TaskListPage } from '../queries.js';
import { type Html, layout, type PageContext, region } from './layout.js';
import { pagerNav, taskTable } from './tasks.js';

/**
 * The DEAD tasks' table, the region the live channel watches: with the pager when read-only;
 * otherwise the rows can be selected, so a change is announced instead of swapped in.
 */
export function deadListRegion(
  ctx: PageContext,
  page: TaskListPage,
  cursor: string | undefined,
): Html {
  const table = taskTable(
    page.items,
    'DEAD tasks, newest first',
    ctx.readOnly ? undefined : { name: 'id' },
  );
  return ctx.readOnly ? html`${table}${deadPager(page, cursor)}` : table;
}

function deadPager(page: TaskListPage, cursor: string | undefined): Html {
  return pagerNav(
    cursor === undefined ? undefined : '/dead',
    page.cursor === undefined ? undefined : `/dead?cursor=${encodeURIComponent(page.cursor)}`,
  );
}

/** Renders the DEAD tasks page. */
export function deadPage(ctx: PageContext, page: TaskListPage, cursor: string | undefined): Html {
  const table = deadListRegion(ctx, page, cursor);
  const pager = deadPager(page, cursor);
  const body = ctx.readOnly
    ? region('dead-list', table)
    : html`
<form method="get" action="/confirm" aria-label="Act on selected DEAD tasks">
${region('dead-list', table, 'notify')}
${
  page.items.length === 0
    ? ''
    : html`<div class="actions">
<button type="submit" name="action" value="redrive">Redrive selected…</button>
</div>`
}
</form>
${pager}
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
    live: true,
    body: html`<p>Tasks that used up their attempts or failed permanently. A redrive sends them back with a fresh attempt budget; a task that has not started yet can be cancelled from its own page.</p>${body}`,
  });
}
