/**
 * The one-time schedules that wake suspended tasks (docs/adr/0048-durable-sleep-signals-pause.md):
 * a task without an ordering key whose timer is further out than the threshold releases its
 * message, and a schedule in the delayed tasks' group, delivered as their role (ADR 0036),
 * sends it a new one when the timer ends. Its body names the generation it wakes, so each
 * wake's body is unique, as the queue's content-based deduplication needs; its name is a hash
 * of the task and that generation, under the `task_` prefix the delayed grants are scoped to.
 * The worker makes them, so the Scheduler SDK is loaded on first use (src/aws/sdk.ts).
 */
import { createHash } from 'node:crypto';
import { loadScheduler } from '../aws/sdk.js';
import { WAKE_SCHEDULE_PREFIX } from '../core/constants.js';
import { wakeBody } from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import { atExpression } from './occurrences.js';
import type { SchedulerTarget } from './target.js';

/**
 * A wake's name: `task_w` and a hash (not hex, so never a hashed delayed task's name) of the
 * task, its record's `createdAt` (a task enqueued again under a purged id is another task,
 * ADR 0063) and the generation it wakes.
 */
export function wakeScheduleName(taskId: string, createdAt: number, generation: number): string {
  const hash = createHash('sha256').update(`${taskId}@${createdAt}#${generation}`).digest('hex');
  return `${WAKE_SCHEDULE_PREFIX}${hash.slice(0, 64 - WAKE_SCHEDULE_PREFIX.length)}`;
}

/** The record fields a wake is made from. */
export type WakeTask = Pick<
  TaskRecord,
  'id' | 'type' | 'generation' | 'createdAt' | 'messageGroupId' | 'lane'
>;

/** Creates and deletes suspended tasks' wake schedules. */
export class WakeSchedules {
  constructor(private readonly target: SchedulerTarget) {}

  /**
   * Creates the schedule that sends `task` (at its current generation) its wake at `at`.
   * Idempotent: a schedule of that name already there is taken as this one.
   *
   * @throws whatever Scheduler throws but a conflict (the caller falls back to holding the
   *   message, which wakes it as well).
   */
  async create(task: WakeTask, at: number): Promise<void> {
    const name = wakeScheduleName(task.id, task.createdAt, task.generation);
    const expression = atExpression(at);
    const body = wakeBody(task);
    const { ConflictException, CreateScheduleCommand } = await loadScheduler();
    try {
      await this.target.client.send(
        new CreateScheduleCommand({
          Name: name,
          GroupName: this.target.delayedGroupName,
          ScheduleExpression: expression,
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          State: 'ENABLED',
          Description: `Tasklane wake of task ${task.id}`.slice(0, 512),
          ...this.target.encryption(),
          Target: await this.target.target(body, task.messageGroupId, task.lane, 'delayed'),
          ClientToken: createHash('sha256')
            .update(JSON.stringify([name, expression, body]))
            .digest('hex'),
        }),
      );
    } catch (err) {
      if (!(err instanceof ConflictException)) throw err;
    }
  }

  /**
   * Deletes the wake of `taskId` (the record of `createdAt`) at `generation`, which a signal or a resume made needless.
   * @returns false when there was none (it fired, or was never made).
   */
  async delete(taskId: string, createdAt: number, generation: number): Promise<boolean> {
    const { DeleteScheduleCommand, ResourceNotFoundException } = await loadScheduler();
    try {
      await this.target.client.send(
        new DeleteScheduleCommand({
          Name: wakeScheduleName(taskId, createdAt, generation),
          GroupName: this.target.delayedGroupName,
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ResourceNotFoundException) return false;
      throw err;
    }
  }
}
