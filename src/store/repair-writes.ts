/**
 * The repairs of a task outside its run, each one conditional write of the transition table
 * (transitions/repairs.ts): an operator's cancel and redrive, the sweeper's requeue of a
 * task whose lease ran out and resend of one whose message was lost, and the rollback of a
 * delayed task whose schedule could not be made. A part of the store made on first use
 * (`TaskStore.feature(RepairWrites)`): a worker makes none of them, so it does not load them
 * (docs/adr/0070-store-parts-on-first-use.md).
 */
import { TransitionRejectedError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { WriteContext } from './store-context.js';
import * as durable from './transitions/durable.js';
import { writeTransition } from './transitions/move.js';
import * as repairs from './transitions/repairs.js';
import type { Seen, SeenHistory } from './transitions/row.js';

/** The repairs' writes on one table. */
export class RepairWrites {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * SCHEDULED | PENDING | QUEUED → CANCELLED (a RUNNING one is asked with
   * `RecordWrites.requestCancel`). `seen` is
   * the record the caller read; its attempt is pinned so the history entry is exact.
   */
  cancel(
    seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'> & SeenHistory,
    reason?: string,
    principal?: string,
  ) {
    return writeTransition(this.ctx, repairs.cancel, { seen, reason, principal });
  }

  /**
   * RUNNING with an expired lease → PENDING under a new generation, so the sweeper can send
   * a fresh message (a new deduplication id). The attempt is kept: the next claim counts as
   * a new one. PENDING rather than QUEUED, so that a failed send leaves the task in the
   * outbox instead of stranding it. Fenced by the expired lease's token and attempt.
   * `actor` (e.g. `sweeper`) is recorded as the history entry's worker.
   */
  requeue(seen: TaskRecord, reason: string, actor?: string): Promise<TaskRecord> {
    return writeTransition(this.ctx, repairs.requeue, { seen, reason, actor });
  }

  /**
   * QUEUED, due before `overdueBefore` → PENDING under a new generation, so the sweeper can
   * send a fresh message: the task's own message may be gone (it outlived the queue's
   * retention). The attempt is kept. PENDING rather than QUEUED, as for a requeue, so that a
   * failed send leaves the task in the outbox. Fenced by the record's status, generation and
   * attempt, and by its due time (the status index's sort key) still being overdue, so a
   * claim, a retry or another sweeper in between makes this write lose.
   */
  resend(seen: TaskRecord, overdueBefore: number, actor?: string): Promise<TaskRecord> {
    return writeTransition(this.ctx, repairs.resend, { seen, overdueBefore, actor });
  }

  /**
   * DEAD → PENDING with a fresh attempt budget and a new generation; the history is kept.
   * The caller then sends the message and marks it sent, as for a new task.
   */
  redrive(
    seen: Seen & Pick<TaskRecord, 'stepEpoch'>,
    reason?: string,
    principal?: string,
    restart = false,
  ): Promise<TaskRecord> {
    const input = { seen, reason, principal };
    return restart
      ? writeTransition(this.ctx, durable.redriveAfresh, {
          ...input,
          stepEpoch: (seen.stepEpoch ?? 0) + 1,
        })
      : writeTransition(this.ctx, repairs.redrive, input);
  }

  /**
   * SCHEDULED → ROLLED_BACK: takes back a delayed task whose schedule this enqueue could not
   * create, so it never runs, and a retry of the same id creates it afresh over it. Only a
   * record this enqueue still owns is moved (see the `rollback` transition): one conditional
   * UpdateItem, so producers need no DeleteItem (docs/adr/0015-rollback-moves-instead-of-deleting.md).
   *
   * @returns `discarded: true` with the ROLLED_BACK record when moved (its `dependents`
   *   are to be released); otherwise the record DynamoDB held instead (undefined when there
   *   is none), which is left as it is.
   */
  async discard(
    seen: Pick<TaskRecord, 'id' | 'type' | 'generation' | 'createdAt'> & SeenHistory,
    reason: string,
  ): Promise<{ readonly discarded: boolean; readonly current?: TaskRecord | undefined }> {
    try {
      return {
        discarded: true,
        current: await writeTransition(this.ctx, repairs.rollback, { seen, reason }),
      };
    } catch (err) {
      if (!(err instanceof TransitionRejectedError)) throw err;
      return { discarded: false, current: err.current };
    }
  }
}
