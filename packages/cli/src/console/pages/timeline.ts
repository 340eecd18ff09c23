/**
 * A task's history as a timeline. Each entry is drawn from a table of how an event reads
 * (its tone and a short phrase), so a new event or status (a durable task's steps, SUSPENDED
 * or PAUSED) needs one row here, and an event this table does not know is still shown, as
 * itself, in a neutral tone.
 */
import { html } from 'hono/html';
import type { HistoryEntry, TaskRecord } from 'tasklane';
import { duration, type Html, statusLabel, time } from './layout.js';

/** How an entry is marked on the timeline: the dot's colour, by CSS class. */
export type Tone = 'start' | 'ok' | 'fail' | 'wait' | 'operator' | 'info';

/** How each known event reads. */
const EVENTS: Readonly<Record<string, { readonly tone: Tone; readonly says: string }>> = {
  submitted: { tone: 'info', says: 'enqueued' },
  scheduled: { tone: 'wait', says: 'waits for its run time' },
  released: { tone: 'info', says: 'its last parent finished' },
  claimed: { tone: 'start', says: 'an attempt started' },
  'heartbeat-extended': { tone: 'info', says: 'lease extended' },
  'retry-scheduled': { tone: 'fail', says: 'the attempt failed; a retry follows' },
  failed: { tone: 'fail', says: 'the attempt failed' },
  succeeded: { tone: 'ok', says: 'done' },
  dead: { tone: 'fail', says: 'declared DEAD' },
  cancelled: { tone: 'operator', says: 'cancelled' },
  'cancel-requested': { tone: 'operator', says: 'asked to stop' },
  redriven: { tone: 'operator', says: 'redriven' },
  'key-released': { tone: 'operator', says: 'its parked key was released' },
  requeued: { tone: 'wait', says: 'sent again by the sweeper' },
  resent: { tone: 'wait', says: 'sent again by the sweeper' },
  unclaimed: { tone: 'wait', says: 'a dependency failed; the claim was given back' },
  'rolled-back': { tone: 'operator', says: 'rolled back' },
};

/** How an event reads; an unknown one reads as itself. */
export function eventReading(event: string): { readonly tone: Tone; readonly says: string } {
  return EVENTS[event] ?? { tone: 'info', says: '' };
}

/** One entry: event, the status it led to, when, and who (attempt, worker, operator). */
function entry(h: HistoryEntry, previous: HistoryEntry | undefined): Html {
  const { tone, says } = eventReading(h.event);
  const who = [
    `attempt ${h.attempt}`,
    ...(h.workerId === undefined ? [] : [`worker ${h.workerId}`]),
    ...(h.principal === undefined ? [] : [`by ${h.principal}`]),
    ...(previous === undefined ? [] : [`+${duration(h.at - previous.at)}`]),
  ].join(', ');
  return html`<li class="tone-${tone}"><strong>${h.event}</strong>${says === '' ? '' : html` <span class="muted">(${says})</span>`} → ${statusLabel(h.status)} ${time(h.at)}
<span class="muted">${who}</span>
${h.detail === undefined ? '' : html`<br><span>${h.detail}</span>`}</li>`;
}

/** The whole timeline, oldest first, with the count of entries folded away. */
export function timeline(r: TaskRecord): Html {
  return html`${r.historyTruncated > 0 ? html`<p class="muted">${r.historyTruncated} earlier entries were folded away (the log keeps them all).</p>` : ''}
<ol class="timeline">${r.history.map((h, n) => entry(h, r.history[n - 1]))}</ol>`;
}
