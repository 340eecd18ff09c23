/** The confirmation step before every action, and the pages after it. */
import { html } from 'hono/html';
import type { LaneState } from 'tasklane';
import { type ActionOutcome, type ConsoleAction, describe, type PurgePreview } from '../actions.js';
import { laneStateLine, MAX_LANE_REASON } from '../lane-actions.js';
import type { KeyPreview } from '../pause-actions.js';
import { csrfField, type Html, layout, type PageContext, statusLabel, taskLink } from './layout.js';

/**
 * Asks to confirm an action; the form POSTs the same fields with the CSRF token. No button
 * is focused: a keystroke meant for another window must not confirm anything. A purge lists
 * the tasks it deletes (its snapshot travels in the form) and asks for their number to be
 * typed.
 */
export function confirmPage(
  ctx: PageContext,
  action: ConsoleAction,
  back: string,
  preview?: PurgePreview,
  keyTasks?: KeyPreview,
  laneState?: LaneState,
): Html {
  if ((action.kind === 'pause-key' || action.kind === 'resume-key') && keyTasks !== undefined) {
    if (keyTasks.tasks.length === 0) {
      const none =
        action.kind === 'pause-key'
          ? `The ordering key "${action.key}" has no SCHEDULED, PENDING, QUEUED, SUSPENDED or RUNNING task: nothing would be paused.`
          : `The ordering key "${action.key}" has no PAUSED task: nothing would be resumed.`;
      const body = html`<div class="confirm" role="region" aria-labelledby="confirm-what">
<p id="confirm-what">${none}</p>
<p><a href="${back}">Go back</a></p>
</div>`;
      return layout(ctx, {
        title: `Confirm ${action.kind.replace('-', ' ')}`,
        path: '/confirm',
        body,
      });
    }
  }
  if (action.kind === 'purge' && preview !== undefined && preview.ids.length === 0) {
    const body = html`<div class="confirm" role="region" aria-labelledby="confirm-what">
<p id="confirm-what">No DEAD task died more than ${action.olderThanDays} days ago: nothing would be deleted.</p>
<p><a href="${back}">Go back</a></p>
</div>`;
    return layout(ctx, { title: 'Confirm purge', path: '/confirm', body });
  }
  const byIds = 'ids' in action;
  const hidden = byIds
    ? action.ids.map((id) => html`<input type="hidden" name="id" value="${id}">`)
    : action.kind === 'purge'
      ? html`<input type="hidden" name="olderThanDays" value="${action.olderThanDays}">${
          preview === undefined
            ? ''
            : html`<input type="hidden" name="asOf" value="${preview.asOf}">${preview.ids.map(
                (id) => html`<input type="hidden" name="id" value="${id}">`,
              )}`
        }`
      : action.kind === 'pause-lane' || action.kind === 'resume-lane'
        ? html`<input type="hidden" name="lane" value="${action.lane}">`
        : action.kind === 'release'
          ? html`<input type="hidden" name="key" value="${action.key}">${action.lane === undefined ? '' : html`<input type="hidden" name="lane" value="${action.lane}">`}`
          : 'key' in action
            ? html`<input type="hidden" name="key" value="${action.key}">`
            : 'name' in action
              ? html`<input type="hidden" name="name" value="${action.name}">`
              : '';
  const listed = byIds
    ? html`<ul>${action.ids.map((id) => html`<li>${taskLink(id)}</li>`)}</ul>`
    : laneState !== undefined
      ? html`<p id="lane-state">${laneStateLine(laneState)}${laneUnchanged(action.kind, laneState)}</p>`
      : keyTasks !== undefined
        ? html`<p>The key's tasks it reaches now${keyTasks.more ? ` (the first ${keyTasks.tasks.length}; it reaches the rest too)` : ''}, in the status each has:</p>
<ul>${keyTasks.tasks.map((t) => html`<li>${taskLink(t.id)} ${statusLabel(t.status)}</li>`)}</ul>`
        : preview === undefined
          ? ''
          : html`<p>${
              preview.total > preview.ids.length
                ? `${preview.total} tasks match; this purge deletes the ${preview.ids.length} listed (purge again for the rest):`
                : `${preview.total} task(s) match:`
            }</p>
<ul>${preview.ids.map((id) => html`<li>${taskLink(id)}</li>`)}</ul>`;
  const typed =
    action.kind === 'purge' && preview !== undefined
      ? html`<label for="confirm-count">Type ${preview.ids.length}, the number of tasks to delete<input id="confirm-count" name="count" inputmode="numeric" autocomplete="off" required size="6"></label>`
      : action.kind === 'pause-lane'
        ? html`<label for="confirm-reason">Reason, shown with the lane's state (optional)<input id="confirm-reason" name="reason" maxlength="${MAX_LANE_REASON}" autocomplete="off" size="40"></label>`
        : '';
  const body = html`<div class="confirm" role="region" aria-labelledby="confirm-what">
<p id="confirm-what">${describe(action)}</p>
${listed}
<form method="post" action="/actions/${action.kind}">
${csrfField(ctx)}${hidden}
${typed}
<div class="actions">
<button type="submit" class="${DANGEROUS.includes(action.kind) ? 'danger' : ''}">Confirm ${action.kind.replace('-', ' ')}</button>
<a href="${back}">Go back</a>
</div>
</form>
</div>`;
  return layout(ctx, { title: `Confirm ${action.kind.replace('-', ' ')}`, path: '/confirm', body });
}

/** What confirming changes on a lane already in the asked state: nothing. */
function laneUnchanged(kind: string, state: LaneState): string {
  if (kind === 'pause-lane' && state.paused) return ' Confirming changes nothing: it stays paused.';
  if (kind === 'resume-lane' && !state.paused) {
    return ' Confirming changes nothing: it is not paused.';
  }
  return '';
}

/** Actions whose Confirm button is red: they cannot be undone. */
const DANGEROUS: readonly string[] = ['purge', 'delete', 'release'];

/** What an action did. */
export function outcomePage(ctx: PageContext, outcome: ActionOutcome): Html {
  const body = html`<div class="notice${outcome.failed ? ' error' : ''}" role="status">
${outcome.lines.length === 0 ? html`<p>Done.</p>` : html`<ul>${outcome.lines.map((l) => html`<li>${l}</li>`)}</ul>`}
</div>
${outcome.ids.length === 0 ? '' : html`<h2>Tasks</h2><ul>${outcome.ids.map((id) => html`<li>${taskLink(id)}</li>`)}</ul>`}
<p><a href="/">Overview</a> · <a href="/dead">DEAD tasks</a> · <a href="/parked">Parked keys</a> · <a href="/schedules">Schedules</a></p>`;
  return layout(ctx, { title: outcome.title, path: '/actions', body });
}

/** A refusal or bad request, with what was wrong and what to do; `more` follows the list. */
export function problemPage(
  ctx: PageContext,
  title: string,
  problems: readonly string[],
  more?: Html,
): Html {
  const body = html`<div class="notice error" role="alert"><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul></div>
${more ?? ''}
<p><a href="/">Back to the overview</a></p>`;
  return layout(ctx, { title, path: '/error', body });
}
