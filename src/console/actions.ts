/**
 * The console's actions: parsed from a form (the same fields for the confirmation step and
 * the POST that acts), then performed through the SDK. Parsing reports every problem at once.
 */
import type { TaskClient } from '../client/task-client.js';
import { TaskStatus } from '../constants.js';
import { TasklaneError } from '../errors.js';

/** One action the console can take. */
export type ConsoleAction =
  | { readonly kind: 'redrive'; readonly ids: readonly string[] }
  | { readonly kind: 'cancel'; readonly ids: readonly string[] }
  | { readonly kind: 'purge'; readonly olderThanDays: number }
  | { readonly kind: 'pause'; readonly name: string }
  | { readonly kind: 'resume'; readonly name: string };

/** The action names, as they appear in URLs. */
export const ACTION_KINDS = ['redrive', 'cancel', 'purge', 'pause', 'resume'] as const;

/** At most this many tasks per redrive or cancel. */
export const MAX_SELECTED = 100;

/** Reads an action from form fields; `field(name)` returns every value of that field. */
export function parseAction(
  kind: string,
  field: (name: string) => readonly string[],
): { action: ConsoleAction } | { problems: string[] } {
  const problems: string[] = [];
  switch (kind) {
    case 'redrive':
    case 'cancel': {
      const ids = [
        ...new Set(
          field('id')
            .map((v) => v.trim())
            .filter((v) => v !== ''),
        ),
      ];
      if (ids.length === 0) problems.push('select at least one task (field "id"); none was given');
      if (ids.length > MAX_SELECTED) {
        problems.push(`select at most ${MAX_SELECTED} tasks at once; received ${ids.length}`);
      }
      return problems.length > 0 ? { problems } : { action: { kind, ids } };
    }
    case 'purge': {
      const raw = field('olderThanDays')[0] ?? '';
      const days = Number(raw);
      if (raw.trim() === '' || !Number.isInteger(days) || days < 0 || days > 3650) {
        return {
          problems: [
            `"older than" must be a whole number of days from 0 to 3650; received "${raw}"`,
          ],
        };
      }
      return { action: { kind, olderThanDays: days } };
    }
    case 'pause':
    case 'resume': {
      const name = (field('name')[0] ?? '').trim();
      if (name === '') return { problems: ['name the schedule (field "name"); none was given'] };
      return { action: { kind, name } };
    }
    default:
      return {
        problems: [`unknown action "${kind}"; expected one of ${ACTION_KINDS.join(', ')}`],
      };
  }
}

/** What an action did, line by line, for the result page. */
export interface ActionOutcome {
  readonly title: string;
  readonly lines: readonly string[];
  /** Task ids the outcome concerns, linked from the result page. */
  readonly ids: readonly string[];
  readonly failed: boolean;
}

/** At most this many ids are listed in a preview or an outcome. */
export const PREVIEW_LIMIT = 50;

/**
 * What the confirmation step shows besides the sentence: for a purge, a dry run's list of
 * the tasks it would delete (the SDK's own selection, so the page cannot drift from it).
 */
export async function previewOf(
  client: TaskClient,
  action: ConsoleAction,
): Promise<{ readonly ids: readonly string[]; readonly total: number } | undefined> {
  if (action.kind !== 'purge') return undefined;
  const out = await client.purge({
    status: TaskStatus.DEAD,
    olderThan: `${action.olderThanDays}d`,
    dryRun: true,
  });
  return { ids: out.purged.slice(0, PREVIEW_LIMIT), total: out.purged.length };
}

/** Performs an action through the client. SDK errors become a failed outcome, not a 500. */
export async function perform(client: TaskClient, action: ConsoleAction): Promise<ActionOutcome> {
  try {
    return await run(client, action);
  } catch (err) {
    const message = err instanceof TasklaneError ? `${err.code}: ${err.message}` : String(err);
    return { title: `The ${action.kind} failed`, lines: [message], ids: [], failed: true };
  }
}

async function run(client: TaskClient, action: ConsoleAction): Promise<ActionOutcome> {
  switch (action.kind) {
    case 'redrive': {
      const out = await client.redrive({ ids: action.ids });
      return {
        title: `Redrove ${out.redriven.length} of ${action.ids.length} tasks`,
        lines: [
          ...out.redriven.map((id) => `${id}: back in the queue`),
          ...out.unsent.map((id) => `${id}: waiting PENDING; the sweeper will send it`),
          ...out.skipped.map((s) => `${s.id}: skipped, ${s.reason}`),
        ],
        ids: action.ids,
        failed: out.redriven.length === 0,
      };
    }
    case 'cancel': {
      const lines: string[] = [];
      let done = 0;
      for (const id of action.ids) {
        try {
          const record = await client.cancel(id, 'cancelled from the console');
          lines.push(
            record.status === TaskStatus.RUNNING
              ? `${id}: cancel requested; its worker stops it at its next heartbeat`
              : `${id}: cancelled`,
          );
          done++;
        } catch (err) {
          lines.push(`${id}: not cancelled, ${(err as Error).message}`);
        }
      }
      return {
        title: `Cancelled ${done} of ${action.ids.length} tasks`,
        lines,
        ids: action.ids,
        failed: done === 0,
      };
    }
    case 'purge': {
      const out = await client.purge({
        status: TaskStatus.DEAD,
        olderThan: `${action.olderThanDays}d`,
      });
      return {
        title: `Purged ${out.purged.length} DEAD tasks`,
        lines: [
          `Deleted the DEAD tasks that died more than ${action.olderThanDays} days ago.`,
          ...out.purged.slice(0, PREVIEW_LIMIT).map((id) => `${id}: deleted`),
          ...out.skipped.map((s) => `${s.id}: kept, ${s.reason}`),
        ],
        ids: [],
        failed: false,
      };
    }
    case 'pause':
      await client.pauseSchedule(action.name);
      return { title: `Paused ${action.name}`, lines: [], ids: [], failed: false };
    case 'resume':
      await client.resumeSchedule(action.name);
      return { title: `Resumed ${action.name}`, lines: [], ids: [], failed: false };
  }
}

/** A sentence saying what the action will do, for the confirmation step. */
export function describe(action: ConsoleAction): string {
  switch (action.kind) {
    case 'redrive':
      return `Redrive ${action.ids.length} DEAD task(s): each goes back to the queue with a fresh attempt budget, keeping its history.`;
    case 'cancel':
      return `Cancel ${action.ids.length} task(s). One that has not started never runs; a running one is asked to stop, and ends CANCELLED at its next heartbeat.`;
    case 'purge':
      return `Delete every DEAD task that died more than ${action.olderThanDays} days ago. This cannot be undone.`;
    case 'pause':
      return `Pause the schedule "${action.name}": it stops firing until resumed. Firings missed meanwhile are not made up.`;
    case 'resume':
      return `Resume the schedule "${action.name}": it fires again from its next occurrence.`;
  }
}
