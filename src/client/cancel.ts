import { isTerminal, TaskStatus } from '../core/constants.js';
import { TaskNotFoundError, TransitionRejectedError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { releaseDependents } from '../dependencies/release.js';
import type { TaskLogger } from '../observability/logger.js';
import type { DelayedTasks } from '../scheduler/delayed.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import type { Waker } from '../scheduler/waker.js';
import type { WakeSchedules } from '../scheduler/wakes.js';
import { RecordWrites } from '../store/record-writes.js';
import { RepairWrites } from '../store/repair-writes.js';
import type { TaskStore } from '../store/task-store.js';

/** What {@link cancelTask} needs from the client. */
export interface CancelDeps {
  readonly store: TaskStore;
  /** Reads the task (turning a misconfigured table into a ConfigurationError). */
  readonly get: (id: string) => Promise<TaskRecord | undefined>;
  readonly delayed: DelayedTasks;
  readonly logger: TaskLogger;
  /** Sends the dependents a cancel releases (`onParentDead: 'run'`). */
  readonly dispatcher?: Dispatcher | undefined;
  /** Who cancels, for the history and the audit line (docs/adr/0039-operator-audit.md). */
  readonly principal?: string | undefined;
  /** Lets a cancelled SUSPENDED or PAUSED task's held message go. */
  readonly waker?: Waker | undefined;
  /** Deletes a cancelled sleeper's wake schedule. */
  readonly wakes?: WakeSchedules | undefined;
}

/**
 * The body of `TaskClient.cancel` for one task: WAITING, SCHEDULED, PENDING, QUEUED,
 * SUSPENDED or PAUSED → CANCELLED (a SCHEDULED task's schedule deleted too, a SUSPENDED or
 * PAUSED one's held message let go and its wake schedule deleted, its dependents cancelled or
 * released by their `onParentDead`); a RUNNING task is marked `cancelRequested`, and
 * its worker ends it CANCELLED at its next heartbeat. A task that changed state meanwhile (a
 * retry, a claim) is tried again from the state DynamoDB returned.
 *
 * @throws TaskNotFoundError when no task has this id.
 * @throws TransitionRejectedError when the task has finished.
 */
export async function cancelTask(
  id: string,
  reason: string | undefined,
  deps: CancelDeps,
): Promise<TaskRecord> {
  let seen = await deps.get(id);
  for (let round = 0; round < 3; round++) {
    if (seen === undefined) throw new TaskNotFoundError(id);
    if (isTerminal(seen.status)) throw new TransitionRejectedError('cancel', id, seen);
    try {
      if (seen.status === TaskStatus.RUNNING) {
        return (await deps.store.feature(RecordWrites).requestCancel(seen, reason, deps.principal))
          .record;
      }
      const cancelled = await deps.store.feature(RepairWrites).cancel(seen, reason, deps.principal);
      if (seen.status === TaskStatus.SCHEDULED) await dropSchedule(id, deps);
      if (seen.status === TaskStatus.SUSPENDED || seen.status === TaskStatus.PAUSED) {
        await letWaitGo(seen, deps);
      }
      // Its dependents follow at once; the sweeper finishes what a crash here leaves.
      await releaseDependents(cancelled, deps);
      return cancelled;
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      const current = err.current;
      if (current === undefined || isTerminal(current.status)) throw err;
      seen = current;
    }
  }
  throw new TransitionRejectedError('cancel', id, seen);
}

/**
 * Best effort, after the cancel's write: a held message is made visible, so that a worker
 * takes it, finds the task finished and deletes it, and the key's later tasks go on at once
 * rather than after its hold (up to 12 hours); a wake schedule is deleted (one left behind
 * fires into a finished task, whose message is dropped).
 */
async function letWaitGo(seen: TaskRecord, deps: CancelDeps): Promise<void> {
  const held = seen.heldMessage;
  if (held !== undefined && deps.waker !== undefined) await deps.waker.show(held, seen.id);
  if (held !== undefined || seen.wait?.until === undefined || deps.wakes === undefined) return;
  try {
    await deps.wakes.delete(seen.id, seen.createdAt, seen.generation);
  } catch (err) {
    deps.logger.warn('wake schedule of a cancelled task not deleted; its firing will be dropped', {
      taskId: seen.id,
      error: (err as Error).message,
    });
  }
}

/** Best effort: a schedule left behind fires into a CANCELLED task, which is dropped. */
async function dropSchedule(id: string, deps: CancelDeps): Promise<void> {
  try {
    await deps.delayed.deleteSchedule(id);
  } catch (err) {
    deps.logger.warn('schedule of a cancelled task not deleted; its firing will be dropped', {
      taskId: id,
      error: (err as Error).message,
    });
  }
}
