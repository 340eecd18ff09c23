/**
 * `TaskClient.cancelMany`: cancels many tasks at once: by ids, or every unfinished task of an
 * ordering key. Each task is cancelled on its own, as {@link cancelTask} does for one, so one
 * task's refusal never stops the others.
 */
import { mapConcurrently } from '../aws/clients.js';
import { TaskStatus } from '../core/constants.js';
import { TaskNotFoundError, TransitionRejectedError, ValidationError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { StatusIndex } from '../store/task-store.js';
import { type CancelDeps, cancelTask } from './cancel.js';
import { listTasks } from './list-tasks.js';
import { taskIdsIssues } from './task-ids.js';

/** Which tasks `TaskClient.cancelMany` cancels. */
export type CancelSelection =
  | { readonly ids: readonly string[]; readonly reason?: string | undefined }
  | { readonly orderingKey: string; readonly reason?: string | undefined };

/** What a cancel of many tasks did, task by task. */
export interface CancelResult {
  /** Tasks that had not started: now CANCELLED. */
  readonly cancelled: readonly string[];
  /** RUNNING tasks marked `cancelRequested`: their workers end them CANCELLED. */
  readonly requested: readonly string[];
  /** Tasks that had already finished, left as they are. */
  readonly finished: readonly { readonly id: string; readonly status: TaskStatus }[];
  readonly notFound: readonly string[];
}

/** Most ids one call accepts. */
export const MAX_CANCEL_IDS = 1000;

/** The statuses of a task that has not finished. */
const UNFINISHED: readonly TaskStatus[] = [
  TaskStatus.WAITING,
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
  TaskStatus.RUNNING,
  // A sleeping, waiting or paused task of the key (docs/adr/0048-durable-sleep-signals-pause.md).
  TaskStatus.SUSPENDED,
  TaskStatus.PAUSED,
];

/**
 * Cancels the selected tasks. For an ordering key, the tasks that have not started go first
 * and the running ones after them, so no waiting task of the key starts in between.
 *
 * @throws ValidationError when the selection names neither ids nor a key, or is malformed.
 */
export async function cancelMany(
  selection: CancelSelection,
  deps: CancelDeps & { readonly index: StatusIndex },
): Promise<CancelResult> {
  const phases = 'ids' in selection ? [checkIds(selection.ids)] : await keyTasks(selection, deps);
  const outcomes: Outcome[] = [];
  for (const ids of phases)
    outcomes.push(...(await mapConcurrently(ids, (id) => cancelOne(id, selection, deps))));
  const of = (kind: string) => outcomes.filter((o) => o.kind === kind).map((o) => o.id);
  return {
    cancelled: of('cancelled'),
    requested: of('requested'),
    finished: outcomes.flatMap((o) =>
      o.status === undefined ? [] : [{ id: o.id, status: o.status }],
    ),
    notFound: of('notFound'),
  };
}

type Outcome = { readonly id: string; readonly kind: string; readonly status?: TaskStatus };

async function cancelOne(
  id: string,
  selection: CancelSelection,
  deps: CancelDeps,
): Promise<Outcome> {
  try {
    const record = await cancelTask(id, selection.reason, deps);
    return { id, kind: record.status === TaskStatus.RUNNING ? 'requested' : 'cancelled' };
  } catch (err) {
    if (err instanceof TaskNotFoundError) return { id, kind: 'notFound' };
    if (err instanceof TransitionRejectedError && err.current !== undefined) {
      return { id, kind: 'finished', status: err.current.status };
    }
    throw err;
  }
}

function checkIds(ids: unknown): readonly string[] {
  const valid = Array.isArray(ids) && ids.length > 0 && ids.length <= MAX_CANCEL_IDS;
  const issues = valid
    ? taskIdsIssues(ids, 'ids')
    : [
        {
          path: 'ids',
          message: `expected 1 to ${MAX_CANCEL_IDS} task ids, received ${describeIds(ids)}`,
        },
      ];
  if (issues.length > 0) throw new ValidationError('cancel selection', issues);
  return [...new Set(ids as string[])];
}

function describeIds(ids: unknown): string {
  return Array.isArray(ids) ? `an array of ${ids.length}` : typeof ids;
}

/**
 * The unfinished tasks of a key, from the status index: every index entry of the unfinished
 * statuses is read (the key is a filter), so the cost grows with all unfinished tasks, not
 * with the key's (docs/progress-and-cancel.md).
 */
async function keyTasks(
  selection: { readonly orderingKey: unknown },
  deps: { readonly index: StatusIndex },
): Promise<readonly (readonly string[])[]> {
  const key = selection.orderingKey;
  if (typeof key !== 'string' || key === '') {
    throw new ValidationError('cancel selection', [
      {
        path: 'orderingKey',
        message: `expected a non-empty ordering key (or ids), received ${JSON.stringify(key) ?? typeof key}`,
      },
    ]);
  }
  const found: TaskRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await listTasks(deps.index, {
      status: UNFINISHED,
      orderingKey: key,
      limit: 1000,
      cursor,
    });
    found.push(...page.items);
    cursor = page.cursor;
  } while (cursor !== undefined);
  const running = found.filter((r) => r.status === TaskStatus.RUNNING).map((r) => r.id);
  const waiting = found.filter((r) => r.status !== TaskStatus.RUNNING).map((r) => r.id);
  return [waiting, running];
}
