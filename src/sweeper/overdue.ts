import { Defaults } from '../core/constants.js';
import { ValidationError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import { RepairWrites } from '../store/repair-writes.js';
import type { TaskStore } from '../store/task-store.js';

/** The worker id the sweeper's transitions are recorded under. */
const SWEEPER_ACTOR = 'sweeper';

/**
 * The QUEUED tasks a sweep sends again are those due before this instant: `now` minus
 * `overdueMs` (the status index sorts a QUEUED task by its due time: the send, or the end
 * of its retry delay).
 *
 * @throws ValidationError for an `overdueMs` that is not a positive integer.
 */
export function overdueBefore(now: number, overdueMs = Defaults.QUEUED_OVERDUE_MS): number {
  if (!Number.isInteger(overdueMs) || overdueMs < 1) {
    throw new ValidationError('sweep options', [
      {
        path: 'queuedOverdueMs',
        message: `expected a positive integer number of milliseconds, received ${overdueMs}`,
      },
    ]);
  }
  return now - overdueMs;
}

/**
 * Gives a long-overdue QUEUED task a new generation (QUEUED → PENDING, one conditional
 * write), for the sweep to send it again. Its own message may have expired: retries and
 * tasks waiting behind their ordering key keep the first message, whose retention runs
 * from its first send. A duplicate is harmless, since the claim decides who runs the task,
 * and the new message joins the tail of its group (docs/adr/0010-retention-and-overdue-resend.md).
 *
 * @throws TransitionRejectedError when a worker or another sweeper moved the task first.
 */
export async function resendOverdue(
  store: TaskStore,
  record: TaskRecord,
  before: number,
  logger: TaskLogger,
): Promise<TaskRecord> {
  const pending = await store.feature(RepairWrites).resend(record, before, SWEEPER_ACTOR);
  logger.warn('queued task overdue: sending it again', {
    taskId: record.id,
    taskType: record.type,
    attempt: record.attempt,
    generation: pending.generation,
  });
  return pending;
}
