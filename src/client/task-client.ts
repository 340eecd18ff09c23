import type { TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import { type PricedUsage, type PriceTable, priceUsage } from '../observability/cost.js';
import { listTasks as listByStatus } from '../store/queries.js';
import { isResult, StepStore, stepInfo } from '../store/steps.js';
import type { PayloadOf, TaskDefinition } from '../tasks/task-definition.js';
import { type BatchEntryResult, enqueueAll } from './batch.js';
import { cancelTask } from './cancel.js';
import { type CancelResult, type CancelSelection, cancelMany } from './cancel-many.js';
import { type CheckReport, checkExecutor, reportError } from './check.js';
import * as operations from './client-operations.js';
import { type ClientParts, clientParts } from './client-parts.js';
import { type CountOptions, countTasks, type TaskCounts } from './counts.js';
import { type BatchEntry, ENQUEUE_USAGE, type EnqueueResult, enqueue } from './enqueue.js';
import { enqueueFanIn, type FanInOptions, type FanInResult } from './fan-in.js';
import { type GetOptions, withResult } from './get-result.js';
import { onTable } from './guarded-calls.js';
import { type DeadLetterClient, deadLetterClient } from './lane-dead-letters.js';
import {
  type LanePauseResult,
  type LaneState,
  laneStates,
  type PauseLaneOptions,
  pauseLane,
  type ResumeLaneOptions,
  resumeLane,
} from './lane-pause.js';
import {
  listTasks,
  type StatusPageOptions,
  type TaskListFilter,
  type TaskListPage,
} from './list-tasks.js';
import { checkClientOptions, type TaskClientOptions } from './options.js';
import {
  listParkedKeys,
  type ParkedKey,
  type ReleaseKeyOptions,
  type ReleaseKeyResult,
} from './parked-keys.js';
import type { KeyPauseResult } from './pause.js';
import type { EnqueueOptions } from './prepare.js';
import type { PurgeOptions, PurgeResult } from './purge.js';
import type { RedriveOptions, RedriveResult, RedriveSelection } from './redrive.js';
import { auditedSchedules, type ScheduleClient } from './schedule-client.js';
import type { SignalOptions, SignalResult } from './signal.js';
import { assertTaskId } from './task-ids.js';
import { assertTaskStatus } from './validate.js';
import { type WaitOptions, waitForTerminal } from './wait.js';
import type { TaskTransition, WatchOptions } from './watch.js';

/**
 * The producer SDK: enqueue tasks, read them, wait for them, cancel them.
 *
 * Enqueue is an outbox: the record is written first (conditionally, so an id is created
 * once, ever), then the message is sent, then the record is marked sent. A crash between
 * the steps leaves a PENDING record that a re-enqueue or the sweeper completes.
 */
export class TaskClient {
  /** Everything the client is made of, wired once from its options (see clientParts). */
  private readonly parts: ClientParts;

  /** The parts with the client's own principal and get, that its operations are wired from. */
  private readonly view: operations.ClientView;

  /**
   * The recurring schedules of the executor's schedule group: `set`, `get`, `list`,
   * `pause`, `resume`, `delete` (docs/scheduling.md).
   */
  readonly schedules: ScheduleClient;

  /**
   * The dead-letter queues' messages, over every lane: `peek` and `stats`. The DEAD tasks
   * are the client's own ({@link TaskClient.redrive}, {@link TaskClient.purge},
   * {@link TaskClient.listByStatus}).
   */
  readonly deadLetters: DeadLetterClient;

  /**
   * @throws ValidationError naming every option it does not know (a typo, or an `endpoint`:
   *   where requests go is set by `AWS_ENDPOINT_URL` or injected clients).
   * @throws ConfigurationError when the table or the queue is named neither in the options nor
   *   in the environment.
   */
  constructor(options: TaskClientOptions = {}) {
    checkClientOptions(options);
    this.parts = clientParts(options);
    this.view = { parts: this.parts, principal: () => this.principal(), get: (id) => this.get(id) };
    this.schedules = auditedSchedules(this.parts.recurring, {
      logger: this.parts.logger,
      clock: this.parts.clock,
      principal: () => this.principal(),
    });
    this.deadLetters = deadLetterClient(
      this.parts.sqs,
      this.parts.deadLetterQueueUrl,
      this.parts.lanes,
    );
  }

  /**
   * Calls the table, the queue and (when scheduling is configured) the schedule group once
   * each, at once, and reports every problem, naming its resource and endpoint; it does not
   * throw for them (see {@link TaskClient.assertReady}). Needs `dynamodb:GetItem`,
   * `sqs:GetQueueAttributes` and `scheduler:GetScheduleGroup`.
   */
  check(): Promise<CheckReport> {
    const { store, dynamodb, sqs, queueUrl, target, location, lanes } = this.parts;
    return checkExecutor({ store, dynamodb, sqs, queueUrl, lanes, schedules: target, location });
  }

  /**
   * {@link TaskClient.check}, throwing when anything is wrong: call it at startup.
   *
   * @throws ConfigurationError listing every problem; `problems` has them one by one.
   */
  async assertReady(): Promise<void> {
    const error = reportError(await this.check());
    if (error !== undefined) throw error;
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
   * @throws ConfigurationError for a delayed task when scheduling is not configured, and when
   *   the table or queue does not exist, access is denied, the endpoint does not answer or no
   *   region is set. When only the send failed, the record stays PENDING and the sweeper sends
   *   it once the configuration is fixed.
   */
  enqueue<D extends TaskDefinition>(
    task: D,
    payload: PayloadOf<D>,
    options: EnqueueOptions = {},
  ): Promise<EnqueueResult> {
    return this.parts.usage.trackTask(ENQUEUE_USAGE, () =>
      enqueue({ task, payload, options }, this.parts.enqueue),
    );
  }

  /**
   * Enqueues many tasks in chunks of 10: each chunk's conditional writes run in parallel and
   * its SendMessageBatch goes as soon as they land, with several chunks in flight. A chunk's
   * send waits only for earlier chunks sharing an ordering key, so tasks sharing a key keep
   * their input order. Each entry gets its own result; one bad entry never affects the others.
   *
   * @throws ConfigurationError when the queue cannot be sent to for a permanent reason (see
   *   {@link TaskClient.enqueue}): that is no entry's fault, and the records written stay
   *   PENDING for the sweeper.
   */
  enqueueBatch(entries: readonly BatchEntry[]): Promise<BatchEntryResult[]> {
    return this.parts.usage.trackTask(
      ENQUEUE_USAGE,
      () => enqueueAll(entries, this.parts.enqueue),
      entries.length,
    );
  }

  /**
   * Fan-out and fan-in: enqueues `entries` as {@link TaskClient.enqueueBatch} does, then
   * `options.then`, a task that depends on all of them and starts once every one has
   * SUCCEEDED (docs/dependencies.md). At most 99 entries. The fan-in task is created only
   * when every entry was enqueued.
   *
   * @throws ValidationError when there are more than 99 entries or `then` is malformed.
   */
  async enqueueFanIn(entries: readonly BatchEntry[], options: FanInOptions): Promise<FanInResult> {
    const results = await this.enqueueBatch(entries);
    return enqueueFanIn(results, options.then, (then, dependsOn) =>
      this.enqueue(then.task, then.payload, { ...then.options, dependsOn }),
    );
  }

  /**
   * What this client instance's enqueues cost since `since` (default: the last 24 hours,
   * all it keeps), priced with `prices` (default: us-east-1 list prices); docs/cost.md.
   */
  costReport(options: { since?: Date | number; prices?: PriceTable } = {}): PricedUsage {
    const since = options.since === undefined ? 0 : Number(options.since);
    const { usage, tasks } = this.parts.usage.since(since);
    return priceUsage(usage, tasks, options.prices);
  }

  /**
   * Moves DEAD tasks back to the queue with a fresh attempt budget, keeping their history,
   * and drains their messages from the dead-letter queue. Tasks sharing an ordering key are
   * re-sent in their original enqueue order; a task that parked its key runs first.
   * `onProgress` reports each selected task moved.
   *
   * @throws ConfigurationError when draining needs the DLQ URL and none is configured, or the
   *   work queue cannot be sent to for a permanent reason (the tasks then wait PENDING).
   */
  redrive(selection: RedriveSelection, options: RedriveOptions = {}): Promise<RedriveResult> {
    return operations.redrive(this.view, selection, options);
  }

  /** Ordering keys parked by a DEAD task of an `onDead: 'park'` type, with that task. */
  parkedKeys(): Promise<ParkedKey[]> {
    return onTable(this.parts.tableCall, () => listParkedKeys(this.parts.store));
  }

  /**
   * Gives up on the DEAD tasks that park `orderingKey`, in every lane it is parked in (or in
   * `options.lane` only): the key's later tasks proceed.
   * @throws UnknownLaneError when `options.lane` is not one of the executor's lanes.
   */
  releaseKey(orderingKey: string, options?: ReleaseKeyOptions): Promise<ReleaseKeyResult> {
    return operations.releaseKey(this.view, orderingKey, options);
  }

  /**
   * Reads a task; undefined when no task has this id. A claim-checked result is read from S3
   * unless `{ fetch: false }` (see {@link GetOptions}); a claim-checked payload is not.
   * @throws ValidationError when `id` cannot be a task's id (empty, a space, over 128 characters).
   * @throws ConfigurationError when the table cannot be read for a permanent reason.
   * @throws ClaimCheckMismatchError when the result's object is missing or altered.
   */
  async get(id: string, options: GetOptions = {}): Promise<TaskRecord | undefined> {
    assertTaskId(id, 'get');
    const record = await onTable(this.parts.tableCall, () => this.parts.store.get(id));
    const full = await withResult(record, this.parts.objects, options);
    if (full === undefined || options.steps !== true) return full;
    const steps = await onTable(this.parts.tableCall, () =>
      this.parts.store.feature(StepStore).list(full),
    );
    return { ...full, steps: steps.filter(isResult).map(stepInfo) };
  }

  /**
   * Lists tasks, newest first across every shard, by the time of the task's last status
   * change, filtered by status, type, ordering key and time range (see
   * {@link TaskListFilter}).
   *
   * @throws ValidationError listing every bad filter.
   */
  list(filter: TaskListFilter = {}): Promise<TaskListPage> {
    return onTable(this.parts.tableCall, () => listTasks(this.parts.index, filter));
  }

  /**
   * Pages through one status's tasks shard by shard, as the sweeper reads them: every task
   * of the status, in no particular order, `limit` at a time; pass the page's `cursor` back
   * for the next page.
   *
   * @throws ValidationError when `status` is not a TaskStatus.
   */
  async listByStatus(status: TaskStatus, options: StatusPageOptions = {}): Promise<TaskListPage> {
    const valid = assertTaskStatus(status, 'listByStatus status');
    return onTable(this.parts.tableCall, () =>
      this.parts.store.part((ctx) => listByStatus(ctx, valid, options)),
    );
  }

  /**
   * Counts tasks per status (and per type with `byType`) from the status index: one Query
   * with `Select: COUNT` per `status#shard` partition, no write per task. It reads every
   * index entry it counts; docs/operations.md gives the cost on a large table.
   */
  counts(options: CountOptions = {}): Promise<TaskCounts> {
    return onTable(this.parts.tableCall, () => countTasks(this.parts.index, options));
  }

  /**
   * Deletes the DEAD tasks that died more than `olderThan` ago (with `dryRun`, only lists
   * them; with `ids`, only those of them). A task redriven meanwhile is kept.
   *
   * @throws ValidationError when `status` is not DEAD or `olderThan` is not a duration.
   */
  purge(options: PurgeOptions): Promise<PurgeResult> {
    return operations.purge(this.view, options);
  }

  /**
   * The principal this client's operator actions (redrive, cancel, purge, releaseKey, and
   * pausing, resuming or deleting a schedule) are recorded as, in their audit lines and
   * history entries: the `principal` option, else the STS caller identity's ARN, asked once
   * per client and kept; `unknown principal (<why>)` while STS cannot be reached, which does
   * not stop the action (docs/adr/0039-operator-audit.md).
   */
  principal(): Promise<string> {
    return this.parts.principal();
  }

  /**
   * Follows transitions as they happen: every task's, read from the table's DynamoDB stream
   * (each transition once, in order per task, however fast the task runs), or one task's
   * with `taskId`, read from its record. End it with `signal` or by leaving the `for await`
   * loop. Needs `grantRead` (the stream's DescribeStream, GetShardIterator and GetRecords,
   * and DescribeTable to find it); see docs/operations.md#following-transitions.
   *
   * @throws ValidationError at once when `taskId` cannot be a task's id; listing every other
   *   bad option at the first `next()`.
   * @throws ConfigurationError when the table has no stream (a deployment older than this
   *   release), or cannot be reached.
   * @throws TaskNotFoundError with `taskId`, when the task does not appear within
   *   `appearWithinMs`.
   * @throws WatchGapError when the watch fell more than 24 hours behind the stream.
   */
  watch(options: WatchOptions = {}): AsyncGenerator<TaskTransition> {
    return operations.watch(this.parts, options);
  }

  /**
   * Polls until the task reaches a terminal state and returns its record.
   *
   * @throws ValidationError when `id` cannot be a task's id.
   * @throws TaskNotFoundError when no task has this id.
   * @throws WaitTimeoutError after `timeoutMs`, carrying the last record seen.
   */
  async wait(id: string, options: WaitOptions = {}): Promise<TaskRecord> {
    assertTaskId(id, 'wait');
    return waitForTerminal(id, (taskId) => this.get(taskId), this.parts.clock, options);
  }

  /**
   * Sends the task `id` the signal `name` with `data` (JSON; at most 4 KB inline, the payload
   * bucket above that): stored with one conditional write whatever the task is doing, so a
   * wait that comes later finds it; a task waiting for it is woken. Signals of one name are
   * consumed in the order sent, one per `ctx.waitForSignal` (docs/durable-tasks.md). A
   * `signalId` makes a retry of the same send store it once.
   *
   * @throws ValidationError for a bad name, signal id or data.
   * @throws TaskNotFoundError when no task has this id.
   * @throws TransitionRejectedError when the task has finished; `current` says how.
   */
  signal(
    id: string,
    name: string,
    data?: unknown,
    options: SignalOptions = {},
  ): Promise<SignalResult> {
    return operations.signal(this.parts, id, name, data, options);
  }

  /**
   * Sends the signal a token names (`ctx.signalToken(name)`, handed by the task to a webhook
   * or an approver) to the task it was made for: as {@link TaskClient.signal}, without
   * knowing the task's id. The token's HMAC is verified under the executor's integrity key
   * (one KMS VerifyMac).
   *
   * @throws SignalTokenError when the token is malformed, altered, made by another executor,
   *   or names a task since purged.
   * @throws ConfigurationError when the client has no integrity key.
   */
  signalWithToken(
    token: string,
    data?: unknown,
    options: SignalOptions = {},
  ): Promise<SignalResult> {
    return operations.signalWithToken(this.parts, token, data, options);
  }

  /**
   * Pauses a task: SCHEDULED, PENDING, QUEUED or SUSPENDED → PAUSED at once (it does not run,
   * and a task with an ordering key keeps its key); a RUNNING task is asked to pause, and its
   * run ends PAUSED at its next step, checkpoint or heartbeat, without spending an attempt.
   * A PAUSED task is returned as it is. With `{ orderingKey }`, every unfinished task of the
   * key (the waiting ones first), reported task by task.
   *
   * @throws ValidationError when `id` cannot be a task's id, or the key is empty.
   * @throws TaskNotFoundError when no task has this id.
   * @throws TransitionRejectedError when the task has finished or waits for its parents.
   */
  pause(id: string, reason?: string): Promise<TaskRecord>;
  pause(selection: { readonly orderingKey: string }, reason?: string): Promise<KeyPauseResult>;
  pause(
    target: string | { readonly orderingKey: string },
    reason?: string,
  ): Promise<TaskRecord | KeyPauseResult> {
    return operations.pause(this.view, target, reason);
  }

  /**
   * Resumes a paused task where it was: due, scheduled, or still sleeping or waiting for its
   * signal (due at once if the signal came meanwhile); or takes back a pause request its run
   * has not honoured yet. With `{ orderingKey }`, every PAUSED task of the key, in enqueue
   * order.
   *
   * @throws ValidationError when `id` cannot be a task's id, or the key is empty.
   * @throws TaskNotFoundError when no task has this id.
   * @throws TransitionRejectedError when the task is neither paused nor asked to pause.
   */
  resume(id: string): Promise<TaskRecord>;
  resume(selection: { readonly orderingKey: string }): Promise<KeyPauseResult>;
  resume(target: string | { readonly orderingKey: string }): Promise<TaskRecord | KeyPauseResult> {
    return operations.resume(this.view, target);
  }

  /**
   * Pauses a whole lane: its tasks stay QUEUED, their messages waiting in its queue, and
   * running ones finish. One conditional write of the lane's control item (read by pollers
   * outside Lambda), then its Lambda event source mappings disabled (docs/durable-tasks.md,
   * "Pausing a lane"). A paused lane is returned as it is.
   *
   * @throws UnknownLaneError for a lane the client does not know.
   * @throws ConfigurationError when `@aws-sdk/client-lambda` is missing (see `mappings`).
   */
  pauseLane(lane: string, options: PauseLaneOptions = {}): Promise<LanePauseResult> {
    return onTable(this.parts.tableCall, () =>
      pauseLane(lane, options, operations.laneDeps(this.view)),
    );
  }

  /**
   * Resumes a paused lane: enables the mappings its pause disabled, then records the resume.
   * A lane that is not paused is returned as it is.
   *
   * @throws UnknownLaneError for a lane the client does not know.
   */
  resumeLane(lane: string, options: ResumeLaneOptions = {}): Promise<LanePauseResult> {
    return onTable(this.parts.tableCall, () =>
      resumeLane(lane, options, operations.laneDeps(this.view)),
    );
  }

  /**
   * Whether each lane (`lanes`, else every lane of the client) is paused, by whom and since
   * when. One BatchGetItem.
   *
   * @throws UnknownLaneError for a lane the client does not know.
   */
  laneStates(lanes?: readonly string[]): Promise<LaneState[]> {
    return onTable(this.parts.tableCall, () => laneStates(lanes, this.parts));
  }

  /**
   * Cancels a task: a waiting one at once; a RUNNING one is marked `cancelRequested`, and its
   * worker ends it CANCELLED at its next heartbeat (docs/progress-and-cancel.md).
   *
   * @throws ValidationError when `id` cannot be a task's id.
   * @throws TaskNotFoundError when no task has this id.
   * @throws TransitionRejectedError when the task has finished; `current` says how.
   */
  async cancel(id: string, reason?: string): Promise<TaskRecord> {
    assertTaskId(id, 'cancel');
    return cancelTask(id, reason, await operations.cancelDeps(this.view));
  }

  /**
   * Cancels each unfinished task of a selection (`{ ids }` or `{ orderingKey }`), as
   * {@link TaskClient.cancel} does one, and reports each task's outcome.
   *
   * @throws ValidationError for a malformed selection.
   */
  async cancelMany(selection: CancelSelection): Promise<CancelResult> {
    return cancelMany(selection, await operations.cancelDeps(this.view));
  }
}
