import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import pLimit from 'p-limit';
import { awsClientConfig, sqsClientConfig } from '../aws-clients.js';
import { EnvVars, type ExecutorLocation, resolveLocation } from '../config.js';
import { Defaults, isTerminal, TaskStatus } from '../constants.js';
import {
  IdempotencyConflictError,
  TaskNotFoundError,
  TransitionRejectedError,
  WaitTimeoutError,
} from '../errors.js';
import { defaultLogger, type TaskLogger } from '../observability/logger.js';
import { Dispatcher } from '../outbox/dispatcher.js';
import type { TaskRecord } from '../store/record.js';
import { type Retention, resolveRetention } from '../store/retention.js';
import { type TaskPage, TaskStore } from '../store/task-store.js';
import type { PayloadOf, TaskDefinition } from '../worker/task-definition.js';
import { DelayedTasks } from './delayed.js';
import { type EnqueueOptions, nextSequence, prepareTask } from './prepare.js';
import { purgeDead, type RedriveResult, type RedriveSelection, redriveDead } from './redrive.js';
import { SchedulerTarget } from './scheduler-target.js';
import {
  type RecurringScheduleOptions,
  RecurringSchedules,
  type ScheduleDetails,
  type ScheduleResult,
  type ScheduleSummary,
} from './schedules.js';

/** Options of {@link TaskClient}. */
export interface TaskClientOptions extends ExecutorLocation {
  /** The dead-letter queue, drained by `redrive`. Env: `TASKLANE_DLQ_URL`. */
  readonly deadLetterQueueUrl?: string;
  /** Injected DynamoDB client. @default a new client from the environment */
  readonly dynamodb?: DynamoDBClient;
  /** Injected SQS client. @default a new client from the environment */
  readonly sqs?: SQSClient;
  /** Largest accepted payload as UTF-8 JSON, in bytes. @default 262144 */
  readonly maxPayloadBytes?: number;
  /** Must match the workers' setting. @default 8 */
  readonly statusShards?: number;
  /**
   * How long a SUCCEEDED or CANCELLED task is kept, and so how long its id stays reserved:
   * milliseconds after it finished, or `'forever'` (no TTL). DEAD tasks stay until purged.
   * Use the same value in producers, workers and the sweeper.
   * @default `TASKLANE_RETENTION_MS`, else 30 days
   */
  readonly retention?: Retention;
  readonly logger?: TaskLogger;
  /** @default Date.now */
  readonly clock?: () => number;
  /** Injected EventBridge Scheduler client. @default a new client from the environment */
  readonly scheduler?: SchedulerClient;
  /**
   * A `runAt` further out than this gets a one-time schedule; a nearer one is sent at once
   * and held back by the worker. @default 60000
   */
  readonly scheduleThresholdMs?: number;
}

/** Outcome of an enqueue. */
export interface EnqueueResult {
  readonly id: string;
  /** False when the id already existed with the same payload: nothing new was created. */
  readonly created: boolean;
  /**
   * False when the record is stored but its message could not be sent yet. The task is
   * not lost: it stays PENDING until a re-enqueue of the same id or the sweeper sends it.
   */
  readonly sent: boolean;
  readonly record: TaskRecord;
}

/** One entry of {@link TaskClient.enqueueBatch}. */
export interface BatchEntry<D extends TaskDefinition = TaskDefinition> {
  readonly task: D;
  readonly payload: PayloadOf<D>;
  readonly options?: EnqueueOptions;
}

/** Per-entry outcome of {@link TaskClient.enqueueBatch}, in input order. */
export type BatchEntryResult =
  | ({ readonly ok: true } & EnqueueResult)
  | { readonly ok: false; readonly error: Error };

/** Options of {@link TaskClient.wait}. */
export interface WaitOptions {
  /** Give up after this long. @default 60000 */
  readonly timeoutMs?: number;
  /** First poll interval; grows to 2 s. @default 100 */
  readonly intervalMs?: number;
}

/**
 * The producer SDK: enqueue tasks, read them, wait for them, cancel them.
 *
 * Enqueue is an outbox: the record is written first (conditionally, so an id is created
 * once, ever), then the message is sent, then the record is marked sent. A crash between
 * the steps leaves a PENDING record that a re-enqueue or the sweeper completes.
 */
export class TaskClient {
  readonly store: TaskStore;
  /** Delayed tasks' schedules; `ensureScheduled` is the sweeper's repair for SCHEDULED tasks. */
  readonly delayed: DelayedTasks;
  private readonly sqs: SQSClient;
  private readonly queueUrl: string;
  private readonly dispatcher: Dispatcher;
  private readonly deadLetterQueueUrl: string | undefined;
  private readonly maxPayloadBytes: number;
  private readonly logger: TaskLogger;
  private readonly clock: () => number;
  private readonly recurring: RecurringSchedules;

  constructor(options: TaskClientOptions = {}) {
    const location = resolveLocation(options);
    this.queueUrl = location.queueUrl;
    this.deadLetterQueueUrl = options.deadLetterQueueUrl ?? process.env[EnvVars.DLQ_URL];
    this.sqs = options.sqs ?? new SQSClient(sqsClientConfig());
    this.logger = options.logger ?? defaultLogger();
    this.maxPayloadBytes = options.maxPayloadBytes ?? Defaults.MAX_PAYLOAD_BYTES;
    this.clock = options.clock ?? Date.now;
    this.store = new TaskStore({
      tableName: location.tableName,
      dynamodb: options.dynamodb ?? new DynamoDBClient(awsClientConfig()),
      logger: this.logger,
      clock: this.clock,
      ...(options.statusShards === undefined ? {} : { statusShards: options.statusShards }),
      retention: resolveRetention(options.retention),
    });
    this.dispatcher = new Dispatcher(this.sqs, location.queueUrl, this.store, this.logger);
    const target = new SchedulerTarget({
      location: options,
      sqs: this.sqs,
      queueUrl: this.queueUrl,
      scheduler: options.scheduler,
    });
    this.delayed = new DelayedTasks({
      store: this.store,
      target,
      sqs: this.sqs,
      queueUrl: this.queueUrl,
      logger: this.logger,
      clock: this.clock,
      thresholdMs: options.scheduleThresholdMs ?? Defaults.SCHEDULE_THRESHOLD_MS,
    });
    this.recurring = new RecurringSchedules(target);
  }

  /**
   * Enqueues one task, now or (with `runAt` / `delay`) later. The payload is validated
   * against the task's schema first.
   *
   * @throws ValidationError listing every problem with the payload and options.
   * @throws PayloadTooLargeError above `maxPayloadBytes`.
   * @throws IdempotencyConflictError when the id exists with another type or payload.
   * @throws ScheduleFailedError when a delayed task's schedule could not be created (the task
   *   was rolled back: retry the same id). A retry that runs while the first call is still
   *   in progress either keeps the task for both (ADR 0009) or throws this too.
   * @throws ConfigurationError for a delayed task when scheduling is not configured.
   */
  async enqueue<D extends TaskDefinition>(
    task: D,
    payload: PayloadOf<D>,
    options: EnqueueOptions = {},
  ): Promise<EnqueueResult> {
    const { record, created } = await this.createRecord(task, payload, options, nextSequence());
    if (record.status === TaskStatus.SCHEDULED) {
      await this.delayed.arrange(record, created);
      return { id: record.id, created, sent: true, record };
    }
    if (record.status !== TaskStatus.PENDING) return { id: record.id, created, sent: true, record };
    const sent = await this.dispatcher.send(record);
    return { id: record.id, created, sent: sent !== undefined, record: sent ?? record };
  }

  /**
   * Enqueues many tasks: conditional writes in parallel, then SendMessageBatch in groups of
   * 10, in input order so tasks sharing an ordering key keep their order. Each entry gets its
   * own result; one bad entry never affects the others.
   */
  async enqueueBatch(entries: readonly BatchEntry[]): Promise<BatchEntryResult[]> {
    const results: BatchEntryResult[] = new Array(entries.length);
    const limit = pLimit(16);
    const toSend: { index: number; record: TaskRecord; created: boolean }[] = [];
    // Taken in input order, before the writes run concurrently.
    const sequences = entries.map(() => nextSequence());
    await Promise.all(
      entries.map((entry, index) =>
        limit(async () => {
          try {
            const { record, created } = await this.createRecord(
              entry.task,
              entry.payload,
              entry.options ?? {},
              sequences[index],
            );
            if (record.status === TaskStatus.SCHEDULED) await this.delayed.arrange(record, created);
            if (record.status === TaskStatus.PENDING) toSend.push({ index, record, created });
            else results[index] = { ok: true, id: record.id, created, sent: true, record };
          } catch (err) {
            results[index] = { ok: false, error: err as Error };
          }
        }),
      ),
    );
    toSend.sort((a, b) => a.index - b.index);
    const sent = await this.dispatcher.sendAll(toSend.map((t) => t.record));
    toSend.forEach((item, n) => {
      const record = sent[n];
      results[item.index] = {
        ok: true,
        id: item.record.id,
        created: item.created,
        sent: record !== undefined,
        record: record ?? item.record,
      };
    });
    return results;
  }

  /**
   * Moves DEAD tasks back to the queue with a fresh attempt budget, keeping their history,
   * and drains their messages from the dead-letter queue. Tasks sharing an ordering key are
   * re-sent in their original enqueue order.
   *
   * @throws ConfigurationError when draining needs the DLQ URL and none is configured.
   */
  redrive(selection: RedriveSelection): Promise<RedriveResult> {
    return redriveDead(selection, {
      store: this.store,
      dispatcher: this.dispatcher,
      sqs: this.sqs,
      deadLetterQueueUrl: this.deadLetterQueueUrl,
      workQueueUrl: this.queueUrl,
      logger: this.logger,
    });
  }

  /**
   * Deletes DEAD tasks that died more than `olderThan` milliseconds ago. Returns how many.
   * Conditional per task, so one redriven meanwhile is kept.
   */
  purgeDead(options: { olderThan: number }): Promise<number> {
    return purgeDead(this.store, options.olderThan);
  }

  /** Reads a task; undefined when no task has this id. */
  get(id: string): Promise<TaskRecord | undefined> {
    return this.store.get(id);
  }

  /** Lists tasks in one status, a page at a time, through the sharded status index. */
  list(status: TaskStatus, options: { limit?: number; cursor?: string } = {}): Promise<TaskPage> {
    return this.store.list(status, options);
  }

  /**
   * Polls until the task reaches a terminal state and returns its record.
   *
   * @throws TaskNotFoundError when no task has this id.
   * @throws WaitTimeoutError after `timeoutMs`, carrying the last record seen.
   */
  async wait(id: string, options: WaitOptions = {}): Promise<TaskRecord> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    let interval = options.intervalMs ?? 100;
    for (;;) {
      const record = await this.store.get(id);
      if (record === undefined) throw new TaskNotFoundError(id);
      if (isTerminal(record.status)) return record;
      const left = deadline - Date.now();
      if (left <= 0) throw new WaitTimeoutError(id, timeoutMs, record);
      await new Promise((resolve) => setTimeout(resolve, Math.min(interval, left)));
      interval = Math.min(interval * 2, 2000);
    }
  }

  /**
   * Cancels a task that has not started: SCHEDULED, PENDING or QUEUED → CANCELLED. A message
   * already in the queue is then acknowledged without running.
   *
   * @throws TaskNotFoundError when no task has this id.
   * @throws TransitionRejectedError when the task is running or finished; `current` says which.
   */
  async cancel(id: string, reason?: string): Promise<TaskRecord> {
    let seen = await this.store.get(id);
    for (let round = 0; round < 3; round++) {
      if (seen === undefined) throw new TaskNotFoundError(id);
      try {
        const cancelled = await this.store.cancel(seen, reason);
        if (seen.status === TaskStatus.SCHEDULED) await this.dropSchedule(id);
        return cancelled;
      } catch (err) {
        if (!(err instanceof TransitionRejectedError)) throw err;
        const current = err.current;
        // Only a change of attempt (a concurrent retry) is worth another try.
        if (
          current === undefined ||
          current.status === TaskStatus.RUNNING ||
          isTerminal(current.status)
        )
          throw err;
        seen = current;
      }
    }
    throw new TransitionRejectedError('cancel', id, seen);
  }

  /**
   * Creates or updates a recurring schedule: each firing becomes one task
   * `<name>@<scheduled time>`, even when Scheduler delivers it twice. The expression and
   * time zone are validated before any call. Creating an existing name updates it.
   *
   * @throws ValidationError listing every problem (name, expression, time zone, payload).
   * @throws ConfigurationError when the schedule group or scheduler role is not configured.
   */
  schedule<D extends TaskDefinition>(
    name: string,
    options: RecurringScheduleOptions<D>,
  ): Promise<ScheduleResult> {
    return this.recurring.schedule(name, options);
  }

  /** Deletes a recurring schedule; false when there was none. Tasks already fired stay. */
  unschedule(name: string): Promise<boolean> {
    return this.recurring.unschedule(name);
  }

  /** Stops a recurring schedule's firings (Scheduler State DISABLED) until resumed. */
  pauseSchedule(name: string): Promise<void> {
    return this.recurring.setState(name, 'DISABLED');
  }

  /** Resumes a paused schedule; firings missed while paused are not made up. */
  resumeSchedule(name: string): Promise<void> {
    return this.recurring.setState(name, 'ENABLED');
  }

  /** Lists the recurring schedules (with `includeDelayed`, delayed tasks' schedules too). */
  listSchedules(options: { includeDelayed?: boolean } = {}): Promise<ScheduleSummary[]> {
    return this.recurring.list(options);
  }

  /** Reads one recurring schedule: expression, time zone, task and payload. */
  getSchedule(name: string): Promise<ScheduleDetails | undefined> {
    return this.recurring.get(name);
  }

  /**
   * Validates and writes the record: SCHEDULED when runAt is beyond the threshold (after
   * checking that scheduling is configured, so a misconfiguration writes nothing), else
   * PENDING. An existing id must carry the same payload.
   */
  private async createRecord(
    task: TaskDefinition,
    payload: unknown,
    options: EnqueueOptions,
    sequence: string | undefined,
  ): Promise<{ record: TaskRecord; created: boolean }> {
    const prepared = {
      ...(await prepareTask(task, payload, options, this.maxPayloadBytes, this.clock())),
      sequence,
    };
    const scheduled = this.delayed.needsSchedule(prepared.runAt);
    if (scheduled) this.delayed.assertConfigured();
    const { record, created } = await this.store.create(
      scheduled
        ? {
            ...prepared,
            scheduled,
            detail: `runAt ${new Date(prepared.runAt ?? 0).toISOString()}`,
          }
        : prepared,
    );
    if (!created) assertSamePayload(record, prepared.payloadHash, prepared.type);
    return { record, created };
  }

  /** Best effort: a schedule left behind fires into a CANCELLED task, which is dropped. */
  private async dropSchedule(id: string): Promise<void> {
    try {
      await this.delayed.deleteSchedule(id);
    } catch (err) {
      this.logger.warn('schedule of a cancelled task not deleted; its firing will be dropped', {
        taskId: id,
        error: (err as Error).message,
      });
    }
  }
}

function assertSamePayload(existing: TaskRecord, hash: string, type: string): void {
  if (existing.payloadHash !== hash || existing.type !== type)
    throw new IdempotencyConflictError(existing);
}
