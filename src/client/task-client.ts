import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import pLimit from 'p-limit';
import { awsClientConfig } from '../aws-clients.js';
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
import { type TaskPage, TaskStore } from '../store/task-store.js';
import type { PayloadOf, TaskDefinition } from '../worker/task-definition.js';
import { type EnqueueOptions, prepareTask } from './prepare.js';
import { purgeDead, type RedriveResult, type RedriveSelection, redriveDead } from './redrive.js';

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
  readonly logger?: TaskLogger;
  /** @default Date.now */
  readonly clock?: () => number;
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
  private readonly sqs: SQSClient;
  private readonly queueUrl: string;
  private readonly dispatcher: Dispatcher;
  private readonly deadLetterQueueUrl: string | undefined;
  private readonly maxPayloadBytes: number;
  private readonly logger: TaskLogger;

  constructor(options: TaskClientOptions = {}) {
    const location = resolveLocation(options);
    this.queueUrl = location.queueUrl;
    this.deadLetterQueueUrl = options.deadLetterQueueUrl ?? process.env[EnvVars.DLQ_URL];
    this.sqs = options.sqs ?? new SQSClient(awsClientConfig());
    this.logger = options.logger ?? defaultLogger();
    this.maxPayloadBytes = options.maxPayloadBytes ?? Defaults.MAX_PAYLOAD_BYTES;
    this.store = new TaskStore({
      tableName: location.tableName,
      dynamodb: options.dynamodb ?? new DynamoDBClient(awsClientConfig()),
      logger: this.logger,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.statusShards === undefined ? {} : { statusShards: options.statusShards }),
    });
    this.dispatcher = new Dispatcher(this.sqs, location.queueUrl, this.store, this.logger);
  }

  /**
   * Enqueues one task. The payload is validated against the task's schema first.
   *
   * @throws ValidationError listing every problem with the payload and options.
   * @throws PayloadTooLargeError above `maxPayloadBytes`.
   * @throws IdempotencyConflictError when the id exists with another type or payload.
   */
  async enqueue<D extends TaskDefinition>(
    task: D,
    payload: PayloadOf<D>,
    options: EnqueueOptions = {},
  ): Promise<EnqueueResult> {
    const prepared = await prepareTask(task, payload, options, this.maxPayloadBytes);
    const { record, created } = await this.store.create(prepared);
    if (!created) assertSamePayload(record, prepared.payloadHash, prepared.type);
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
    await Promise.all(
      entries.map((entry, index) =>
        limit(async () => {
          try {
            const prepared = await prepareTask(
              entry.task,
              entry.payload,
              entry.options ?? {},
              this.maxPayloadBytes,
            );
            const { record, created } = await this.store.create(prepared);
            if (!created) assertSamePayload(record, prepared.payloadHash, prepared.type);
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

  /** Deletes DEAD tasks whose death is older than `olderThanMs`. Returns how many. */
  purgeDead(options: { olderThanMs: number }): Promise<number> {
    return purgeDead(this.store, options.olderThanMs);
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
        return await this.store.cancel(seen, reason);
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
}

function assertSamePayload(existing: TaskRecord, hash: string, type: string): void {
  if (existing.payloadHash !== hash || existing.type !== type)
    throw new IdempotencyConflictError(existing);
}
