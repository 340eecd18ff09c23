/** The confirmation step before every action, and the pages after it. */
import { html } from 'hono/html';
import { type ActionOutcome, type ConsoleAction, describe } from '../actions.js';
import { csrfField, type Html, layout, type PageContext, taskLink } from './layout.js';

/** Asks to confirm an action; the form POSTs the same fields with the CSRF token. */
export function confirmPage(
  ctx: PageContext,
  action: ConsoleAction,
  back: string,
  preview?: { readonly ids: readonly string[]; readonly total: number },
): Html {
  const hidden =
    action.kind === 'redrive' || action.kind === 'cancel'
      ? action.ids.map((id) => html`<input type="hidden" name="id" value="${id}">`)
      : action.kind === 'purge'
        ? html`<input type="hidden" name="olderThanDays" value="${action.olderThanDays}">`
        : html`<input type="hidden" name="name" value="${action.name}">`;
  const listed =
    action.kind === 'redrive' || action.kind === 'cancel'
      ? html`<ul>${action.ids.map((id) => html`<li>${taskLink(id)}</li>`)}</ul>`
      : preview === undefined
        ? ''
        : html`<p>${preview.total === 0 ? 'No task matches: nothing would be deleted.' : `${preview.total} task(s) match${preview.total > preview.ids.length ? `; the first ${preview.ids.length}` : ''}:`}</p>
<ul>${preview.ids.map((id) => html`<li>${taskLink(id)}</li>`)}</ul>`;
  const body = html`<div class="confirm" role="region" aria-labelledby="confirm-what">
<p id="confirm-what">${describe(action)}</p>
${listed}
<form method="post" action="/actions/${action.kind}">
${csrfField(ctx)}${hidden}
<div class="actions">
<button type="submit" class="${action.kind === 'purge' ? 'danger' : ''}" autofocus>Confirm ${action.kind}</button>
<a href="${back}">Go back</a>
</div>
</form>
</div>`;
  return layout(ctx, { title: `Confirm ${action.kind}`, path: '/confirm', body });
}

/** What an action did. */
export function outcomePage(ctx: PageContext, outcome: ActionOutcome): Html {
  const body = html`<div class="notice${outcome.failed ? ' error' : ''}" role="status">
${outcome.lines.length === 0 ? html`<p>Done.</p>` : html`<ul>${outcome.lines.map((l) => html`<li>${l}</li>`)}</ul>`}
</div>
${outcome.ids.length === 0 ? '' : html`<h2>Tasks</h2><ul>${outcome.ids.map((id) => html`<li>${taskLink(id)}</li>`)}</ul>`}
<p><a href="/">Overview</a> · <a href="/dead">DEAD tasks</a> · <a href="/schedules">Schedules</a></p>`;
  return layout(ctx, { title: outcome.title, path: '/actions', body });
}

/** A refusal or bad request, with what was wrong and what to do. */
export function problemPage(ctx: PageContext, title: string, problems: readonly string[]): Html {
  const body = html`<div class="notice error" role="alert"><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul></div>
<p><a href="/">Back to the overview</a></p>`;
  return layout(ctx, { title, path: '/error', body });
}
