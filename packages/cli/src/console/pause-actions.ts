/**
 * The console's pause and resume of tasks and of ordering keys (issue 26; the writes are the
 * client's, docs/adr/0048-durable-sleep-signals-pause.md): what the confirmation page says,
 * and the outcome, task by task, with the reason of each refusal. The client records the
 * operator's principal on each write (docs/adr/0039-operator-audit.md).
 */
import type { KeyPauseResult, TaskClient, TaskRecord } from 'tasklane';
import { TaskNotFoundError, TaskStatus, TransitionRejectedError } from 'tasklane';

/** A pause or resume of tasks by id, or of a whole ordering key. */
export type PauseAction =
  | { readonly kind: 'pause-task' | 'resume-task'; readonly ids: readonly string[] }
  | { readonly kind: 'pause-key' | 'resume-key'; readonly key: string };

/** The reason a console pause is recorded with, in the task's history. */
export const CONSOLE_PAUSE_REASON = 'paused from the console';

/** The statuses a task's pause takes at once; RUNNING takes it as a request. */
export const PAUSABLE: readonly TaskStatus[] = [
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  TaskStatus.SUSPENDED,
];

/** What the outcome page shows (the same shape as actions.ts's `ActionOutcome`). */
export interface PauseOutcome {
  readonly title: string;
  readonly lines: readonly string[];
  readonly ids: readonly string[];
  readonly failed: boolean;
}

/** The confirmation page's sentence. */
export function describePause(action: PauseAction): string {
  switch (action.kind) {
    case 'pause-task':
      return `Pause ${action.ids.length} task(s): one that has not started, or sleeps or waits for a signal, stays PAUSED until resumed, and a paused task keeps its ordering key (the key's later tasks wait). A RUNNING one is asked to pause: its run ends PAUSED at its next step, checkpoint or heartbeat, without spending an attempt.`;
    case 'resume-task':
      return `Resume ${action.ids.length} task(s): each goes back where it was when paused (due, scheduled, or still sleeping or waiting for its signal). On a RUNNING task asked to pause, the request is taken back.`;
    case 'pause-key':
      return `Pause the ordering key "${action.key}": its SCHEDULED, PENDING, QUEUED and SUSPENDED tasks become PAUSED, then its RUNNING ones are asked to pause. While they are paused, the key's later tasks wait behind them.`;
    case 'resume-key':
      return `Resume every PAUSED task of the ordering key "${action.key}", in enqueue order: each goes back where it was when paused.`;
  }
}

/** Performs the action through the client; each task's refusal is a line, never a throw. */
export async function performPause(client: TaskClient, action: PauseAction): Promise<PauseOutcome> {
  switch (action.kind) {
    case 'pause-task':
    case 'resume-task':
      return byIds(client, action.kind === 'pause-task' ? 'pause' : 'resume', action.ids);
    case 'pause-key': {
      const out = await client.pause({ orderingKey: action.key }, CONSOLE_PAUSE_REASON);
      return byKey('pause', action.key, out);
    }
    case 'resume-key':
      return byKey('resume', action.key, await client.resume({ orderingKey: action.key }));
  }
}

async function byIds(
  client: TaskClient,
  verb: 'pause' | 'resume',
  ids: readonly string[],
): Promise<PauseOutcome> {
  const lines: string[] = [];
  let done = 0;
  for (const id of ids) {
    try {
      const record =
        verb === 'pause' ? await client.pause(id, CONSOLE_PAUSE_REASON) : await client.resume(id);
      lines.push(`${id}: ${doneLine(verb, record)}`);
      done++;
    } catch (err) {
      if (err instanceof TaskNotFoundError) {
        lines.push(`${id}: not ${verb}d, no task has this id (purged, or mistyped)`);
      } else if (err instanceof TransitionRejectedError) {
        lines.push(`${id}: not ${verb}d, ${refusal(verb, err.current)}`);
      } else {
        throw err;
      }
    }
  }
  const title = verb === 'pause' ? 'Paused' : 'Resumed';
  return { title: `${title} ${done} of ${ids.length} tasks`, lines, ids, failed: done === 0 };
}

function doneLine(verb: 'pause' | 'resume', record: TaskRecord): string {
  if (verb === 'pause') {
    return record.status === TaskStatus.RUNNING
      ? 'pause requested: it is RUNNING, and its run ends PAUSED at its next step, checkpoint or heartbeat'
      : `paused (it resumes to ${record.pausedFrom ?? TaskStatus.PENDING})`;
  }
  return record.status === TaskStatus.RUNNING
    ? 'its pause request was taken back: it runs on'
    : `resumed, now ${record.status}`;
}

/** Why a task refused: the status it was found in, in words. */
function refusal(verb: 'pause' | 'resume', current: TaskRecord | undefined): string {
  if (current === undefined) return 'the task no longer exists';
  const status = current.status;
  if (
    status === TaskStatus.SUCCEEDED ||
    status === TaskStatus.DEAD ||
    status === TaskStatus.CANCELLED
  ) {
    return `the task has finished: it is ${status}`;
  }
  if (verb === 'resume') return `the task is ${status}, not PAUSED, and no pause was requested`;
  if (status === TaskStatus.WAITING) {
    return 'the task is WAITING for its parents: cancel it, or pause it once it is due';
  }
  return `the task is ${status}`;
}

function byKey(verb: 'pause' | 'resume', key: string, out: KeyPauseResult): PauseOutcome {
  const doneWord = verb === 'pause' ? 'paused' : 'resumed';
  const lines = [
    ...out.done.map((id) => `${id}: ${doneWord}`),
    ...out.requested.map((id) =>
      verb === 'pause'
        ? `${id}: pause requested: it is RUNNING, and its run ends PAUSED at its next step, checkpoint or heartbeat`
        : `${id}: its pause request was taken back: it runs on`,
    ),
    ...out.skipped.map((id) => `${id}: left as it is, finished or moved on meanwhile`),
  ];
  const acted = out.done.length + out.requested.length;
  const total = acted + out.skipped.length;
  if (total === 0) {
    return {
      title: `Key ${key}: nothing to ${verb}`,
      lines: [
        verb === 'pause'
          ? `The key "${key}" has no unfinished task to pause.`
          : `The key "${key}" has no PAUSED task.`,
      ],
      ids: [],
      failed: true,
    };
  }
  return {
    title: `${verb === 'pause' ? 'Paused' : 'Resumed'} ${acted} of ${total} tasks of key ${key}`,
    lines,
    ids: [...out.done, ...out.requested, ...out.skipped],
    failed: acted === 0,
  };
}

/** At most this many of a key's tasks are listed on its confirmation page. */
export const KEY_PREVIEW_LIMIT = 100;

/** The tasks of a key that a pause or resume would reach now, for its confirmation page. */
export interface KeyPreview {
  readonly tasks: readonly { readonly id: string; readonly status: TaskStatus }[];
  /** True when the key has more such tasks than are listed. */
  readonly more: boolean;
}

/**
 * Reads the tasks of the key in the statuses its pause (or resume) reaches, as the client's
 * own selection does: the confirmation page lists them. The action reads them again when it
 * is confirmed, so a task that moved on in between is reported as left as it is.
 */
export async function keyPreviewOf(
  client: TaskClient,
  action: { readonly kind: 'pause-key' | 'resume-key'; readonly key: string },
): Promise<KeyPreview> {
  const page = await client.list({
    status: action.kind === 'pause-key' ? [...PAUSABLE, TaskStatus.RUNNING] : TaskStatus.PAUSED,
    orderingKey: action.key,
    limit: KEY_PREVIEW_LIMIT,
  });
  return {
    tasks: page.items.map((r) => ({ id: r.id, status: r.status })),
    more: page.cursor !== undefined,
  };
}
