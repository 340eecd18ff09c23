/**
 * The console's actions: parsed from a form (the same fields for the confirmation step and
 * the POST that acts), then performed through the SDK. Parsing reports every problem at once.
 */
import type { TaskClient } from 'tasklane';
import { TasklaneError, TaskStatus } from 'tasklane';
import { describeLane, type LaneAction, MAX_LANE_REASON, performLane } from './lane-actions.js';
import { describePause, type PauseAction, performPause } from './pause-actions.js';

/** One action the console can take, as the confirmation page is asked for it. */
export type ConsoleAction =
  | { readonly kind: 'redrive'; readonly ids: readonly string[] }
  | { readonly kind: 'cancel'; readonly ids: readonly string[] }
  | { readonly kind: 'purge'; readonly olderThanDays: number }
  | { readonly kind: 'pause'; readonly name: string }
  | { readonly kind: 'resume'; readonly name: string }
  | { readonly kind: 'delete'; readonly name: string }
  | { readonly kind: 'redrive-key'; readonly key: string }
  | { readonly kind: 'release'; readonly key: string; readonly lane: string | undefined }
  | PauseAction
  | LaneAction;

/**
 * The tasks a purge's confirmation page listed, and when it listed them: the purge deletes
 * these, and only those of them that are still DEAD and died before the same cutoff
 * (`asOf` less the days), so a task that died or was redriven after the page was shown is
 * kept.
 */
export interface PurgeSnapshot {
  readonly ids: readonly string[];
  /** When the confirmation page read them (epoch ms). */
  readonly asOf: number;
}

/** An action as its confirmed form posts it: a purge carries its {@link PurgeSnapshot}. */
export type ConfirmedAction =
  | Exclude<ConsoleAction, { readonly kind: 'purge' }>
  | { readonly kind: 'purge'; readonly olderThanDays: number; readonly snapshot: PurgeSnapshot };

/** The action names, as they appear in URLs. */
export const ACTION_KINDS = [
  'redrive',
  'cancel',
  'purge',
  'pause',
  'resume',
  'delete',
  'redrive-key',
  'release',
  'pause-task',
  'resume-task',
  'pause-key',
  'resume-key',
  'pause-lane',
  'resume-lane',
] as const;

/** At most this many tasks per redrive, cancel, purge, pause or resume. */
export const MAX_SELECTED = 100;

/** A purge confirmation older than this is refused: reload it to see what matches now. */
export const CONFIRMATION_TTL_MS = 3_600_000;

const DAY_MS = 86_400_000;

/** Reads an action from form fields; `field(name)` returns every value of that field. */
export function parseAction(
  kind: string,
  field: (name: string) => readonly string[],
): { action: ConsoleAction } | { problems: string[] } {
  const problems: string[] = [];
  switch (kind) {
    case 'redrive':
    case 'cancel':
    case 'pause-task':
    case 'resume-task': {
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
    case 'resume':
    case 'delete': {
      const name = (field('name')[0] ?? '').trim();
      if (name === '') return { problems: ['name the schedule (field "name"); none was given'] };
      return { action: { kind, name } };
    }
    case 'redrive-key':
    case 'release':
    case 'pause-key':
    case 'resume-key': {
      // A key is taken as it is: ordering keys may hold spaces at either end.
      const key = field('key')[0] ?? '';
      if (key === '') {
        const which = kind === 'pause-key' || kind === 'resume-key' ? '' : ' parked';
        return { problems: [`name the${which} ordering key (field "key"); none was given`] };
      }
      if (kind !== 'release') return { action: { kind, key } };
      const lane = (field('lane')[0] ?? '').trim();
      return { action: { kind, key, lane: lane === '' ? undefined : lane } };
    }
    case 'pause-lane':
    case 'resume-lane': {
      const lane = (field('lane')[0] ?? '').trim();
      if (lane === '') problems.push('name the lane (field "lane"); none was given');
      const reason = (field('reason')[0] ?? '').trim();
      if (reason.length > MAX_LANE_REASON) {
        problems.push(
          `a reason of at most ${MAX_LANE_REASON} characters is accepted; received ${reason.length}`,
        );
      }
      if (problems.length > 0) return { problems };
      return {
        action: kind === 'pause-lane' && reason !== '' ? { kind, lane, reason } : { kind, lane },
      };
    }
    default:
      return {
        problems: [`unknown action "${kind}"; expected one of ${ACTION_KINDS.join(', ')}`],
      };
  }
}

/**
 * Reads a confirmed action from the posted form: the fields of {@link parseAction}, and for
 * a purge the snapshot (`id` fields and `asOf`) with the count the operator typed (`count`),
 * which must be the number of tasks listed. Reports every problem at once.
 */
export function parseConfirmed(
  kind: string,
  field: (name: string) => readonly string[],
  now: number,
): { action: ConfirmedAction } | { problems: string[] } {
  const parsed = parseAction(kind, field);
  if ('problems' in parsed) return parsed;
  if (parsed.action.kind !== 'purge') return { action: parsed.action };
  const problems: string[] = [];
  const ids = [...new Set(field('id').map((v) => v.trim()))].filter((v) => v !== '');
  if (ids.length === 0) problems.push('the purge lists no task (field "id"): nothing to delete');
  if (ids.length > MAX_SELECTED) {
    problems.push(`a purge deletes at most ${MAX_SELECTED} tasks at once; received ${ids.length}`);
  }
  const asOfText = (field('asOf')[0] ?? '').trim();
  const asOf = /^\d{1,16}$/.test(asOfText) ? Number(asOfText) : Number.NaN;
  if (!Number.isSafeInteger(asOf) || asOf > now + 60_000) {
    problems.push(`"asOf" must be the time the confirmation was shown; received "${asOfText}"`);
  } else if (now - asOf > CONFIRMATION_TTL_MS) {
    problems.push(
      'this confirmation is more than an hour old: open the purge again to see what it would delete now',
    );
  }
  const typed = (field('count')[0] ?? '').trim();
  if (typed !== String(ids.length)) {
    problems.push(
      `type the number of tasks listed (${ids.length}) to confirm the purge; received "${typed}"`,
    );
  }
  if (problems.length > 0) return { problems };
  return { action: { ...parsed.action, snapshot: { ids, asOf } } };
}

/** What an action did, line by line, for the result page. */
export interface ActionOutcome {
  readonly title: string;
  readonly lines: readonly string[];
  /** Task ids the outcome concerns, linked from the result page. */
  readonly ids: readonly string[];
  readonly failed: boolean;
}

/** What a purge's confirmation page lists: the snapshot, and how many tasks match in all. */
export interface PurgePreview extends PurgeSnapshot {
  readonly total: number;
}

/**
 * What the confirmation step shows besides the sentence: for a purge, a dry run's list of
 * the tasks it would delete (the SDK's own selection, so the page cannot drift from it),
 * at most {@link MAX_SELECTED} of them, and the time it was read, after the dry run: a task
 * listed died before `asOf` less the days.
 */
export async function previewOf(
  client: TaskClient,
  action: ConsoleAction,
  clock: () => number,
): Promise<PurgePreview | undefined> {
  if (action.kind !== 'purge') return undefined;
  const out = await client.purge({
    status: TaskStatus.DEAD,
    olderThan: `${action.olderThanDays}d`,
    dryRun: true,
  });
  return { ids: out.purged.slice(0, MAX_SELECTED), total: out.purged.length, asOf: clock() };
}

/** Performs an action through the client. SDK errors become a failed outcome, not a 500. */
export async function perform(
  client: TaskClient,
  action: ConfirmedAction,
  clock: () => number,
): Promise<ActionOutcome> {
  try {
    return await run(client, action, clock);
  } catch (err) {
    const message = err instanceof TasklaneError ? `${err.code}: ${err.message}` : String(err);
    return { title: `The ${action.kind} failed`, lines: [message], ids: [], failed: true };
  }
}

async function run(
  client: TaskClient,
  action: ConfirmedAction,
  clock: () => number,
): Promise<ActionOutcome> {
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
      const { ids, asOf } = action.snapshot;
      // The cutoff of the confirmation page, not of now: a task listed there died before it,
      // one that died (again) since did not, whatever the days.
      const cutoff = asOf - action.olderThanDays * DAY_MS;
      const out = await client.purge({
        status: TaskStatus.DEAD,
        olderThan: Math.max(0, clock() - cutoff),
        ids,
      });
      return {
        title: `Purged ${out.purged.length} of ${ids.length} DEAD tasks`,
        lines: [
          `Deleted the DEAD tasks the confirmation listed that were still DEAD and had died more than ${action.olderThanDays} days before it.`,
          ...out.purged.map((id) => `${id}: deleted`),
          ...out.skipped.map((s) => `${s.id}: kept, ${s.reason}`),
        ],
        ids: out.skipped.map((s) => s.id),
        failed: out.purged.length === 0,
      };
    }
    case 'pause':
      await client.schedules.pause(action.name);
      return { title: `Paused ${action.name}`, lines: [], ids: [], failed: false };
    case 'resume':
      await client.schedules.resume(action.name);
      return { title: `Resumed ${action.name}`, lines: [], ids: [], failed: false };
    case 'delete': {
      const deleted = await client.schedules.delete(action.name);
      return {
        title: deleted ? `Deleted ${action.name}` : `No schedule ${action.name}`,
        lines: deleted
          ? ['The schedule fires no more; the tasks it created stay.']
          : ['It was deleted already (by someone else, or from the CLI).'],
        ids: [],
        failed: !deleted,
      };
    }
    case 'redrive-key': {
      const out = await client.redrive({ orderingKey: action.key });
      return {
        title: `Redrove ${out.redriven.length} DEAD task(s) of key ${action.key}`,
        lines: [
          ...out.redriven.map((id) => `${id}: back in the queue, in the key's order`),
          ...out.unsent.map((id) => `${id}: waiting PENDING; the sweeper will send it`),
          ...out.skipped.map((s) => `${s.id}: skipped, ${s.reason}`),
        ],
        ids: [...out.redriven, ...out.unsent],
        failed: out.redriven.length + out.unsent.length === 0,
      };
    }
    case 'release': {
      const out = await client.releaseKey(
        action.key,
        action.lane === undefined ? {} : { lane: action.lane },
      );
      return {
        title: out.released ? `Released key ${action.key}` : `Key ${action.key} was not released`,
        lines: out.released
          ? [`Gave up on ${out.taskIds.join(', ')}: it stays DEAD, and the key's later tasks run.`]
          : ['The key is not parked (any more): redriven or released meanwhile.'],
        ids: out.taskIds,
        failed: !out.released,
      };
    }
    case 'pause-task':
    case 'resume-task':
    case 'pause-key':
    case 'resume-key':
      return performPause(client, action);
    case 'pause-lane':
    case 'resume-lane':
      return performLane(client, action);
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
      return `Delete the DEAD tasks listed below, which died more than ${action.olderThanDays} days ago. This cannot be undone.`;
    case 'pause':
      return `Pause the schedule "${action.name}": it stops firing until resumed. Firings missed meanwhile are not made up.`;
    case 'resume':
      return `Resume the schedule "${action.name}": it fires again from its next occurrence.`;
    case 'delete':
      return `Delete the schedule "${action.name}": it never fires again. The tasks it created stay. This cannot be undone (set it again to recreate it).`;
    case 'redrive-key':
      return `Redrive the DEAD tasks of the ordering key "${action.key}": the task that parked it runs first, in place, then the key's later tasks in their order.`;
    case 'release':
      return `Release the parked key "${action.key}"${action.lane === undefined ? '' : ` in lane ${action.lane}`}: give up on the DEAD task that holds it (it stays DEAD, and can still be redriven by id), and let the key's later tasks run.`;
    case 'pause-task':
    case 'resume-task':
    case 'pause-key':
    case 'resume-key':
      return describePause(action);
    case 'pause-lane':
    case 'resume-lane':
      return describeLane(action);
  }
}
