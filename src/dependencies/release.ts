/**
 * The release of a finished task's dependents (docs/adr/0030-dependencies.md), run by
 * whoever wrote the terminal state (the worker, a producer's cancel) right after it, and by
 * the sweeper for a parent left in the release partition by a crash. Every step is one
 * conditional write that counts this parent at most once on each child, so running it twice,
 * or two runners at once, changes nothing the first did not.
 */
import { isTerminal, TaskStatus } from '../core/constants.js';
import { describeError, TransitionRejectedError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import { DependencyStore } from '../store/dependency-store.js';
import { compareEnqueueOrder } from '../store/record.js';
import type { TaskStore } from '../store/task-store.js';

/** What a release needs. */
export interface ReleaseDeps {
  readonly store: TaskStore;
  /** Sends a released task; without one, the sweeper sends it as a PENDING task. */
  readonly dispatcher?: Pick<Dispatcher, 'sendAll'> | undefined;
  readonly logger: TaskLogger;
}

/** What one release did, over the parent and the cancellations it cascaded to. */
export interface ReleaseReport {
  /** Children moved WAITING → PENDING (and sent, when a dispatcher was given). */
  readonly released: TaskRecord[];
  /** Children moved WAITING → CANCELLED by a parent that did not succeed. */
  readonly cancelled: TaskRecord[];
  /** Children that counted the parent and still wait for others. */
  readonly counted: number;
}

/**
 * Writes per child beyond its parent count before giving up on it (the sweeper retries).
 * Each lost race is another parent counted first, so a child with n parents loses at most n.
 */
const SPARE_ROUNDS = 3;

/**
 * Releases the dependents of `parent`, a task just read or written in a terminal state, then
 * files the parent back under its status. A cancelled child's own dependents follow in the
 * same call. An error on one child is logged and leaves the parent in the release partition,
 * so the sweeper finishes it later; it never throws for one child.
 */
export async function releaseDependents(
  parent: TaskRecord,
  deps: ReleaseDeps,
): Promise<ReleaseReport> {
  const report = { released: [] as TaskRecord[], cancelled: [] as TaskRecord[], counted: 0 };
  const queue: TaskRecord[] = [parent];
  while (queue.length > 0) {
    const next = queue.shift() as TaskRecord;
    if (!isTerminal(next.status) || (next.dependents ?? []).length === 0) continue;
    let complete = true;
    for (const childId of next.dependents ?? []) {
      try {
        const outcome = await settleChild(next, childId, deps);
        if (outcome.kind === 'released') report.released.push(outcome.record);
        if (outcome.kind === 'cancelled') {
          report.cancelled.push(outcome.record);
          queue.push(outcome.record);
        }
        if (outcome.kind === 'counted') report.counted += 1;
        if (outcome.kind === 'busy') complete = false;
      } catch (err) {
        complete = false;
        deps.logger.error('dependent not released; the sweeper retries', {
          taskId: next.id,
          childId,
          error: describeError(err),
        });
      }
    }
    if (complete) await deps.store.feature(DependencyStore).finishRelease(next);
  }
  await sendReleased(report.released, deps);
  return report;
}

type ChildOutcome =
  | { readonly kind: 'released' | 'cancelled'; readonly record: TaskRecord }
  | { readonly kind: 'counted' | 'done' | 'busy' };

/** Counts `parent`'s outcome on one child: one conditional write, again on each lost race. */
async function settleChild(
  parent: TaskRecord,
  childId: string,
  deps: ReleaseDeps,
): Promise<ChildOutcome> {
  const dependencies = deps.store.feature(DependencyStore);
  let child = await deps.store.get(childId);
  const rounds = (child?.parents?.length ?? 0) + SPARE_ROUNDS;
  for (let round = 0; round < rounds; round++) {
    if (child === undefined || child.status !== TaskStatus.WAITING) return { kind: 'done' };
    if (child.releasedBy?.includes(parent.id) === true) return { kind: 'done' };
    const input = { seen: child, parent, detail: detailOf(parent, child) };
    try {
      if (!counts(parent, child))
        return { kind: 'cancelled', record: await dependencies.cancel(input) };
      if ((child.waitingOn ?? 0) <= 1) {
        return { kind: 'released', record: await dependencies.release(input) };
      }
      await dependencies.countParent(child, parent.id);
      return { kind: 'counted' };
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      child = err.current;
    }
  }
  return { kind: 'busy' };
}

/**
 * Whether the parent's end counts as finished for the child: SUCCEEDED, or under
 * `onParentDead: 'run'` DEAD or CANCELLED. A ROLLED_BACK parent never counts: its enqueue
 * threw, so it never existed for its caller, and a task cannot run after it
 * (docs/adr/0031-dependency-fences.md).
 */
function counts(parent: TaskRecord, child: TaskRecord): boolean {
  if (parent.status === TaskStatus.ROLLED_BACK) return false;
  return parent.status === TaskStatus.SUCCEEDED || child.onParentDead === 'run';
}

function detailOf(parent: TaskRecord, child: TaskRecord): string {
  const parents = child.parents?.length ?? 1;
  if (parent.status === TaskStatus.ROLLED_BACK) {
    return `parent '${parent.id}' was rolled back (its enqueue failed), so it never ran`;
  }
  if (counts(parent, child)) {
    return `parent '${parent.id}' ${parent.status}; all ${parents} parent(s) finished`;
  }
  return `parent '${parent.id}' ${parent.status} (onParentDead: cancel)`;
}

/**
 * Sends the released tasks in enqueue order, so that dependents of one ordering key start as
 * they were enqueued (the parent's `dependents` set has no order); one not sent stays
 * PENDING for the sweeper.
 */
async function sendReleased(released: readonly TaskRecord[], deps: ReleaseDeps): Promise<void> {
  if (deps.dispatcher === undefined || released.length === 0) return;
  try {
    await deps.dispatcher.sendAll([...released].sort(compareEnqueueOrder));
  } catch (err) {
    deps.logger.warn('released tasks not sent; the sweeper sends them', {
      taskIds: released.map((r) => r.id),
      error: describeError(err),
    });
  }
}
