import { createHash } from 'node:crypto';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { TaskStatus } from '../core/constants.js';
import { ScheduleFailedError } from '../core/errors.js';
import { taskMessage } from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import { releaseDependents } from '../dependencies/release.js';
import type { TaskLogger } from '../observability/logger.js';
import type { LaneQueues } from '../settings/lanes.js';
import { type ExecutorLocation, scheduleThreshold } from '../settings/location.js';
import { RecordWrites } from '../store/record-writes.js';
import { RepairWrites } from '../store/repair-writes.js';
import type { TaskStore } from '../store/task-store.js';
import { Dispatcher } from './dispatcher.js';
import { delayedScheduleName } from './names.js';
import { atExpression } from './occurrences.js';
import { newSchedulerClient } from './scheduler-client.js';
import { SchedulerTarget } from './target.js';

/** How a SCHEDULED task's delivery was arranged by {@link DelayedTasks.ensureScheduled}. */
export type Arrangement =
  /** Its one-time schedule exists (created now, or found). */
  | 'scheduled'
  /** It was due (or nearly): its message was sent to the queue directly. */
  | 'sent'
  /** Nothing to do: the task is no longer SCHEDULED. */
  | 'not-scheduled';

/** What {@link DelayedTasks.arrange} did, with the record as it is now. */
export interface Arranged {
  readonly arrangement: Arrangement;
  readonly record: TaskRecord;
}

/** What {@link DelayedTasks} needs. */
export interface DelayedTasksDeps {
  readonly store: TaskStore;
  readonly target: SchedulerTarget;
  /** Sends a due task to its lane's queue, as every other send does. */
  readonly dispatcher: Dispatcher;
  readonly logger: TaskLogger;
  readonly clock: () => number;
  /** A runAt at most this far ahead is sent at once instead of scheduled. */
  readonly thresholdMs: number;
}

/** What {@link createDelayedTasks} needs: the client's, or the sweeper's, own parts. */
export interface DelayedTasksOptions {
  readonly location: ExecutorLocation;
  readonly store: TaskStore;
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /** Every lane's queues; without it, every task goes to `queueUrl`. */
  readonly lanes?: LaneQueues | undefined;
  readonly logger: TaskLogger;
  readonly clock: () => number;
  /** @default a client from the environment */
  readonly scheduler?: SchedulerClient | undefined;
  /** See `TaskClientOptions.scheduleThresholdMs`. */
  readonly scheduleThresholdMs?: number | undefined;
  /** The schedules' target, when the caller shares it with recurring schedules. */
  readonly target?: SchedulerTarget;
  /** The caller's dispatcher. @default one over `sqs` and the lanes' queues */
  readonly dispatcher?: Dispatcher | undefined;
}

/**
 * Delayed-task scheduling for the producer and the sweeper, which repairs overdue SCHEDULED
 * tasks with {@link DelayedTasks.ensureScheduled}.
 */
export function createDelayedTasks(options: DelayedTasksOptions): DelayedTasks {
  const { store, sqs, queueUrl, lanes, logger, clock } = options;
  const target =
    options.target ??
    new SchedulerTarget({
      location: options.location,
      sqs,
      queueUrl,
      lanes,
      scheduler: options.scheduler,
      newClient: newSchedulerClient,
    });
  const thresholdMs = scheduleThreshold(options.scheduleThresholdMs);
  const dispatcher = options.dispatcher ?? new Dispatcher(sqs, lanes ?? queueUrl, logger);
  return new DelayedTasks({ store, target, dispatcher, logger, clock, thresholdMs });
}

/**
 * Delayed tasks: a SCHEDULED record plus a one-time `at()` schedule in the executor's
 * delayed group (`<group>.at`, apart from recurring schedules)
 * that sends the task's ordinary message body to the FIFO queue when it is due.
 *
 * Crash safety (rollback, ADR 0009): the record is written first, then the schedule. If
 * creating the schedule fails, the enqueue that wrote the record moves it to ROLLED_BACK
 * (it never runs) and throws ScheduleFailedError, so the caller knows nothing was enqueued
 * and can retry the same id, which creates it afresh over the rolled-back record.
 * It removes only what it still owns: every enqueue of the id (the one that wrote the record,
 * or a retry that found it) makes sure of the schedule, then confirms the record before
 * reporting success, and a confirmed record is never rolled back; an enqueue whose own
 * CreateSchedule fails rolls back an unconfirmed record, whichever enqueue wrote it. If the process dies between the two writes, the SCHEDULED
 * record has no schedule: a re-enqueue of the same id calls {@link ensureScheduled}, and so
 * does the sweeper for SCHEDULED tasks that are overdue.
 */
export class DelayedTasks {
  constructor(private readonly deps: DelayedTasksDeps) {}

  /** @throws ConfigurationError when the schedule group or scheduler role is not configured. */
  assertConfigured(): void {
    this.deps.target.config();
  }

  /** True when a task due at `runAt` should go through a schedule rather than the queue. */
  needsSchedule(runAt: number | undefined): boolean {
    return runAt !== undefined && runAt - this.deps.clock() > this.deps.thresholdMs;
  }

  /**
   * Arranges delivery of a SCHEDULED record just written (`created`) or found again, and
   * confirms it before it is reported, so that no other enqueue of the id can roll it back
   * after (docs/adr/0038-model-found-enqueue-and-purge-fixes.md). The writing enqueue
   * confirms too: a retry of the id whose own CreateSchedule failed may have rolled the
   * record back while this one waited on its CreateSchedule.
   *
   * @returns how delivery was arranged, and the record as it is now: the confirmed one, or
   *   the one it moved on to meanwhile (cancelled, fired) — never the SCHEDULED record first
   *   written if it has changed since.
   * @throws ScheduleFailedError when the task is not enqueued: its schedule could not be
   *   created (this enqueue then rolled the record back, whichever enqueue of the id wrote
   *   it), or another enqueue of the id rolled it back first.
   */
  async arrange(record: TaskRecord, created: boolean): Promise<Arranged> {
    let arrangement: Arrangement;
    try {
      arrangement = await this.ensureScheduled(record);
    } catch (err) {
      return this.notScheduled(record, created, err);
    }
    if (arrangement === 'not-scheduled' || record.scheduleConfirmed) return { arrangement, record };
    const { outcome, current } = await this.deps.store
      .feature(RecordWrites)
      .confirmSchedule(record);
    if (outcome === 'gone') {
      await this.dropSchedule(record.id);
      throw new ScheduleFailedError(record.id, delayedScheduleName(record.id), {
        cause: new Error('another enqueue of the task rolled it back before this one confirmed it'),
      });
    }
    // Cancelled while this CreateSchedule was under way: the cancel found no schedule to
    // delete, so this one would fire for nothing.
    if (current?.status === TaskStatus.CANCELLED)
      await this.deleteSchedule(record.id).catch(() => false);
    return { arrangement, record: current ?? record };
  }

  /**
   * A SCHEDULED record whose schedule this enqueue could not create: rolled back (then its
   * dependents are cancelled and ScheduleFailedError is thrown), unless another enqueue of the
   * id confirmed it (or it moved on) first; it then stands, with the schedule that enqueue
   * made sure of.
   */
  private async notScheduled(
    record: TaskRecord,
    created: boolean,
    err: unknown,
  ): Promise<Arranged> {
    const name = delayedScheduleName(record.id);
    const { discarded, current } = await this.deps.store
      .feature(RepairWrites)
      .discard(record, `schedule ${name} not created: ${(err as Error).message}`);
    const stands =
      !discarded &&
      current !== undefined &&
      current.createdAt === record.createdAt &&
      current.status !== TaskStatus.ROLLED_BACK;
    if (stands) {
      this.deps.logger.info('schedule not created, but another enqueue of the task did', {
        taskId: record.id,
        created,
        error: (err as Error).message,
      });
      return { arrangement: 'scheduled', record: current };
    }
    // Only once the record is rolled back: deleting first would remove a schedule that a
    // confirming enqueue relies on.
    if (discarded) await this.dropSchedule(record.id);
    // Dependents that registered while it was SCHEDULED wait for a task that was never
    // enqueued: they are cancelled now (a crash here leaves that to the sweeper, or to the
    // next enqueue of the id), and the id can be enqueued again once they are.
    if (discarded && current !== undefined && (current.dependents ?? []).length > 0) {
      // Cancelled, whatever their onParentDead: nothing is sent.
      await releaseDependents(current, {
        store: this.deps.store,
        logger: this.deps.logger,
      }).catch((cause: unknown) => {
        this.deps.logger.warn('dependents of a rolled-back task not cancelled; the sweeper will', {
          taskId: record.id,
          error: (cause as Error).message,
        });
      });
    }
    throw new ScheduleFailedError(record.id, name, { cause: err });
  }

  /**
   * Deletes the schedule of a task that was rolled back. A new record of the same id may
   * have been written meanwhile, and found this schedule in place; it is re-arranged, so
   * that it does not wait for the sweeper.
   */
  private async dropSchedule(taskId: string): Promise<void> {
    await this.deleteSchedule(taskId).catch(() => false);
    const again = await this.deps.store.get(taskId).catch(() => undefined);
    if (again?.status === TaskStatus.SCHEDULED) {
      await this.ensureScheduled(again).catch((err: unknown) => {
        this.deps.logger.warn('schedule of a re-enqueued task not restored; the sweeper will', {
          taskId,
          error: (err as Error).message,
        });
      });
    }
  }

  /**
   * Makes sure a SCHEDULED task will be delivered: creates its one-time schedule if it is
   * missing, or, when the task is due within the threshold (an overdue task whose schedule
   * was lost, for instance), sends its message now; the worker holds an early message back
   * until runAt. Idempotent; for the sweeper as much as for a retried enqueue.
   */
  async ensureScheduled(record: TaskRecord): Promise<Arrangement> {
    if (record.status !== TaskStatus.SCHEDULED) return 'not-scheduled';
    if (!this.needsSchedule(record.runAt)) {
      await this.deps.dispatcher.sendNow(record);
      return 'sent';
    }
    const message = taskMessage(record);
    const name = delayedScheduleName(record.id);
    const expression = atExpression(record.runAt ?? this.deps.clock());
    try {
      await this.deps.target.client.send(
        new CreateScheduleCommand({
          Name: name,
          GroupName: this.deps.target.delayedGroupName,
          ScheduleExpression: expression,
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          State: 'ENABLED',
          Description: `Tasklane delayed task ${record.id}`.slice(0, 512),
          ...this.deps.target.encryption(),
          // The body is the task's own envelope: unique per task, as content-based dedup needs.
          Target: await this.deps.target.target(
            message.MessageBody,
            record.messageGroupId,
            record.lane,
            'delayed',
          ),
          ClientToken: delayedClientToken(name, expression, message.MessageBody, record.createdAt),
        }),
      );
    } catch (err) {
      // Already there: an earlier attempt created it.
      if (!(err instanceof ConflictException)) throw err;
    }
    return 'scheduled';
  }

  /**
   * Deletes a delayed task's schedule. After a cancel, a schedule that already fired is
   * harmless: the worker drops the message of a CANCELLED task.
   *
   * @returns false when there was no such schedule.
   */
  async deleteSchedule(taskId: string): Promise<boolean> {
    try {
      await this.deps.target.client.send(
        new DeleteScheduleCommand({
          Name: delayedScheduleName(taskId),
          GroupName: this.deps.target.delayedGroupName,
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ResourceNotFoundException) return false;
      throw err;
    }
  }
}

/**
 * CreateSchedule's idempotency token for a delayed task's schedule. Scheduler answers a
 * repeated token from its cache, so the token must change whenever the request would: it
 * covers the name, the expression and the input, and the record's creation time, so that a
 * re-enqueue of the same id after a rollback (a new record, the old schedule deleted) is
 * not answered with the first, deleted schedule. Retries for one record (the SDK's, a
 * repeated enqueue, the sweeper) share it.
 */
export function delayedClientToken(
  name: string,
  expression: string,
  input: string,
  createdAt: number,
): string {
  return createHash('sha256')
    .update(JSON.stringify([name, expression, input, String(createdAt)]))
    .digest('hex');
}
