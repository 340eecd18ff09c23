/**
 * `TaskClient.pause` and `resume` of one task (docs/durable-tasks.md,
 * docs/adr/0048-durable-sleep-signals-pause.md). A pause is one conditional write: SCHEDULED,
 * PENDING, QUEUED or SUSPENDED → PAUSED (its message, when it comes, is dropped, or held for a
 * key's task), or a request on a RUNNING task, which its run honours at its next step,
 * checkpoint or heartbeat. A resume is one conditional write back to where the task was, and
 * then makes its message come: a held one shown, a due task sent a new one, a future one's
 * schedule or wake made again.
 */
import { isTerminal, TaskStatus } from '../core/constants.js';
import { TaskNotFoundError, TransitionRejectedError, ValidationError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import type { DelayedTasks } from '../scheduler/delayed.js';
import type { Waker } from '../scheduler/waker.js';
import type { WakeSchedules } from '../scheduler/wakes.js';
import type { PauseStore } from '../store/pauses.js';
import { compareEnqueueOrder } from '../store/record.js';
import type { StatusIndex, TaskStore } from '../store/task-store.js';
import { listTasks } from './list-tasks.js';

/** What a pause or a resume needs from the client. */
export interface PauseDeps {
  readonly store: TaskStore;
  /** The pause and resume writes (made by the client: the worker never loads them). */
  readonly pauses: PauseStore;
  readonly get: (id: string) => Promise<TaskRecord | undefined>;
  readonly waker: Waker;
  readonly wakes: WakeSchedules;
  readonly delayed: DelayedTasks;
  readonly logger: TaskLogger;
  readonly clock: () => number;
  /** Who pauses or resumes, for the history and the audit line (ADR 0039). */
  readonly principal?: string | undefined;
}

const PAUSABLE_STATUSES: readonly TaskStatus[] = [
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  TaskStatus.SUSPENDED,
];
const PAUSABLE: ReadonlySet<TaskStatus> = new Set(PAUSABLE_STATUSES);

/** Tries of a write when the task moves between its read and its write. */
const ROUNDS = 3;

/**
 * Pauses the task `id`: PAUSED at once, or (RUNNING) asked to pause at its run's next step,
 * checkpoint or heartbeat. A PAUSED task is returned as it is.
 *
 * @throws TaskNotFoundError when no task has this id.
 * @throws TransitionRejectedError when the task has finished or waits for its parents.
 */
export async function pauseTask(
  id: string,
  reason: string | undefined,
  deps: PauseDeps,
): Promise<TaskRecord> {
  let seen = await deps.get(id);
  for (let round = 0; round < ROUNDS; round++) {
    if (seen === undefined) throw new TaskNotFoundError(id);
    if (seen.status === TaskStatus.PAUSED) return seen;
    try {
      if (seen.status === TaskStatus.RUNNING) {
        return (await deps.pauses.requestPause(seen, reason, deps.principal)).record;
      }
      if (!PAUSABLE.has(seen.status)) throw new TransitionRejectedError('pause', id, seen);
      return await deps.pauses.pause(seen, reason, deps.principal);
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      const current = err.current;
      if (current === undefined || isTerminal(current.status) || current === seen) throw err;
      seen = current;
    }
  }
  throw new TransitionRejectedError('pause', id, seen);
}

/**
 * Resumes the task `id`: PAUSED → where it was (due, scheduled, or still sleeping or
 * waiting), or a pause request its run has not honoured yet withdrawn. Then makes its
 * message come (best effort: the sweeper repairs what fails).
 *
 * @throws TaskNotFoundError when no task has this id.
 * @throws TransitionRejectedError when the task is neither paused nor asked to pause.
 */
export async function resumeTask(id: string, deps: PauseDeps): Promise<TaskRecord> {
  let seen = await deps.get(id);
  for (let round = 0; round < ROUNDS; round++) {
    if (seen === undefined) throw new TaskNotFoundError(id);
    try {
      if (seen.status !== TaskStatus.PAUSED) {
        if (seen.pauseRequested !== true) throw new TransitionRejectedError('resume', id, seen);
        const withdrawn = await deps.pauses.withdrawPause(seen, deps.principal);
        if (withdrawn !== undefined) return withdrawn;
        seen = await deps.get(id);
        continue;
      }
      const from = seen.pausedFrom ?? TaskStatus.PENDING;
      const resumed = await deps.pauses.resume(seen, from, deps.principal);
      await letGo(seen, resumed, deps);
      return resumed;
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      const current = err.current;
      if (current === undefined || isTerminal(current.status) || current === seen) throw err;
      seen = current;
    }
  }
  throw new TransitionRejectedError('resume', id, seen);
}

/**
 * After a resume: a held message is shown (the worker decides again from the record); a due
 * task without one is sent a new message under the resume's generation; a future delayed task
 * gets its schedule again, and a future sleeper without a held message its wake.
 */
async function letGo(paused: TaskRecord, resumed: TaskRecord, deps: PauseDeps): Promise<void> {
  const record = { ...resumed, heldMessage: paused.heldMessage };
  try {
    if (paused.heldMessage !== undefined) {
      if (await deps.waker.show(paused.heldMessage, record.id)) return;
    }
    const now = deps.clock();
    if (record.status === TaskStatus.SCHEDULED) {
      await deps.delayed.ensureScheduled(record);
      return;
    }
    if (record.status === TaskStatus.SUSPENDED) {
      const until = record.wait?.until;
      const due = record.woken === true || (until !== undefined && until <= now);
      if (due) await deps.waker.wake(record, { send: true });
      else if (until !== undefined) await deps.wakes.create(record, until);
      return;
    }
    await deps.waker.wake(record, { send: true });
  } catch (err) {
    deps.logger.warn('resumed task not sent; the sweeper sends it', {
      taskId: record.id,
      error: (err as Error).message,
    });
  }
}

/** What a pause or resume of an ordering key did, task by task. */
export interface KeyPauseResult {
  /** Tasks now PAUSED, or (on a resume) back where they were. */
  readonly done: readonly string[];
  /** RUNNING tasks asked to pause: their runs end PAUSED at their next step or heartbeat. */
  readonly requested: readonly string[];
  /** Tasks that had finished or moved on meanwhile, left as they are. */
  readonly skipped: readonly string[];
}

/** The statuses a key's pause reaches, and a key's resume. */
const KEY_PAUSABLE: readonly TaskStatus[] = [...PAUSABLE_STATUSES, TaskStatus.RUNNING];

/**
 * Pauses every unfinished task of `orderingKey` (waiting ones first, then the running ones,
 * so no waiting task of the key starts in between), or resumes every PAUSED one (in enqueue
 * order). Each task is paused or resumed on its own, so one refusal never stops the others.
 *
 * @throws ValidationError for an empty key.
 */
export async function pauseKey(
  orderingKey: string,
  action: 'pause' | 'resume',
  reason: string | undefined,
  deps: PauseDeps & { readonly index: StatusIndex },
): Promise<KeyPauseResult> {
  if (typeof orderingKey !== 'string' || orderingKey === '') {
    throw new ValidationError(`${action} selection`, [
      {
        path: 'orderingKey',
        message: `expected a non-empty ordering key, received ${JSON.stringify(orderingKey) ?? typeof orderingKey}`,
      },
    ]);
  }
  const statuses = action === 'pause' ? KEY_PAUSABLE : [TaskStatus.PAUSED];
  const found: TaskRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await listTasks(deps.index, {
      status: [...statuses],
      orderingKey,
      limit: 1000,
      cursor,
    });
    found.push(...page.items);
    cursor = page.cursor;
  } while (cursor !== undefined);
  found.sort(compareEnqueueOrder);
  const ordered = [
    ...found.filter((r) => r.status !== TaskStatus.RUNNING),
    ...found.filter((r) => r.status === TaskStatus.RUNNING),
  ];
  const done: string[] = [];
  const requested: string[] = [];
  const skipped: string[] = [];
  for (const task of ordered) {
    try {
      const record =
        action === 'pause'
          ? await pauseTask(task.id, reason, deps)
          : await resumeTask(task.id, deps);
      (record.status === TaskStatus.RUNNING ? requested : done).push(task.id);
    } catch (err) {
      if (!(err instanceof TransitionRejectedError) && !(err instanceof TaskNotFoundError))
        throw err;
      skipped.push(task.id);
    }
  }
  return { done, requested, skipped };
}
