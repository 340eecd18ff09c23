import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import pLimit from 'p-limit';
import { AuditEvent } from '../constants.js';
import {
  LeaseLostError,
  PermanentError,
  TasklaneError,
  TransitionRejectedError,
  UnknownTaskTypeError,
  ValidationError,
} from '../errors.js';
import { eventRetrySeconds, type WorkerEvents } from '../events/worker-events.js';
import { checkIntegrity } from '../integrity/check.js';
import type { IntegrityTag } from '../integrity/tag.js';
import { parseMessage } from '../message.js';
import { logAudit } from '../observability/audit.js';
import type { TaskLogger } from '../observability/logger.js';
import { type TaskMetrics, TaskOutcome } from '../observability/metrics.js';
import type { TaskErrorInfo, TaskRecord } from '../store/record.js';
import type { Lease, TaskStore } from '../store/task-store.js';
import { truncate } from '../text.js';
import { retryDelayMs } from './backoff.js';
import { decideClaim, isLeaseTakeover } from './claim-decision.js';
import { fifoBatchFailures, groupMessages } from './fifo.js';
import { admitFiring } from './firing.js';
import type { FiringSenders } from './firing-trust.js';
import { runHandler } from './run-handler.js';
import type { TakeoverGate } from './takeover-gate.js';
import { describeInvalidPayload, type TaskDefinition, validatePayload } from './task-definition.js';
import {
  type VisibilityChange,
  type VisibilityController,
  visibilitySeconds,
} from './visibility.js';

/** What the processor needs; built once per worker by `createWorker`. */
export interface ProcessorDeps {
  readonly definitions: ReadonlyMap<string, TaskDefinition>;
  readonly store: TaskStore;
  readonly visibility: VisibilityController;
  readonly logger: TaskLogger;
  /** Counts outcomes, handler durations and queue latency; flushed by the caller per batch. */
  readonly metrics: TaskMetrics;
  readonly workerId: string;
  readonly clock: () => number;
  readonly leaseGraceMs: number;
  /**
   * Longest lease taken at once. A task whose timeout (plus grace) is longer gets this
   * lease and an automatic heartbeat every third of it, so a crashed worker's task is taken
   * over after at most this long instead of after its whole timeout.
   */
  readonly leaseDurationMs: number;
  readonly maxResultBytes: number;
  /** Message groups processed at once within one batch. */
  readonly groupConcurrency: number;
  /** Shared by every batch of the worker: takeovers never run beside other claimed work. */
  readonly takeoverGate: TakeoverGate;
  readonly random: () => number;
  /** Who may send a recurring schedule's firing (ADR 0013). */
  readonly firingSenders: FiringSenders;
  /** Verifies each claimed record's integrity tag (and tags firings); undefined when off. */
  readonly integrity?: IntegrityTag | undefined;
  /** Lifecycle events and hooks; the store above already notes its writes' events. */
  readonly events?: WorkerEvents | undefined;
}

/** Per-invocation limits, e.g. the Lambda's remaining time. */
export interface BatchOptions {
  /** Milliseconds left before the host kills the invocation; unbounded when absent. */
  readonly remainingTimeMs?: () => number;
}

type Outcome =
  | { readonly kind: 'ack' }
  /** Report failed and make the message visible again after `delayMs`. */
  | { readonly kind: 'retry'; readonly delayMs: number }
  /** Report failed and leave the visibility timeout alone (an infrastructure error). */
  | { readonly kind: 'fail' }
  /** Not touched yet: a lease takeover, which waits until the batch's other tasks finish. */
  | { readonly kind: 'takeover' };

const ACK: Outcome = { kind: 'ack' };
/**
 * After a refused fenced write (the lease was lost): the message goes back at once and is
 * never acknowledged. It is still at the head of its FIFO group, ahead of the message the
 * sweeper sent for the requeued task and of the key's later tasks, so the task's next
 * attempt runs from it, in order; the later copy is dropped as a duplicate once the task
 * has finished (ADR 0007).
 */
const LEASE_LOST: Outcome = { kind: 'retry', delayMs: 0 };
const CLAIM_ROUNDS = 3;
/**
 * A returned message stays invisible at least this long, so a retry with a zero jittered
 * delay cannot spin, and the messages held back behind it are seen first.
 */
const MIN_RETRY_VISIBILITY_SECONDS = 1;
/** Time kept back from an invocation's deadline to record the outcome. */
const INVOCATION_SAFETY_MS = 3_000;
/** With less budget than this (or than the task's own timeout), a task is not started. */
const MIN_RUN_MS = 1_000;

/**
 * The processing core shared by the Lambda handler and the poll loop: takes a batch of
 * SQS records, runs each task at most once per claim, and returns the batch item failures.
 * Message groups run concurrently; inside a group, messages run in order and the first
 * failure holds back the rest (the FIFO rule). Lease takeovers (tasks whose last attempt
 * may have crashed its worker) wait until the rest of the batch, and any other batch the
 * worker is running, is done, then run one at a time (ADR 0007).
 */
export async function processBatch(
  records: readonly SQSRecord[],
  deps: ProcessorDeps,
  options: BatchOptions = {},
): Promise<SQSBatchResponse> {
  const messages = records.map((record) => ({
    messageId: record.messageId,
    groupId: record.attributes.MessageGroupId,
    record,
  }));
  const failed = new Set<string>();
  const changes: VisibilityChange[] = [];
  const batch: BatchState = { phase: 'fresh', pickedUp: new Set() };
  const events = deps.events?.batch();

  /**
   * Runs a message group's records in order; the first failure holds back the rest. Returns
   * the records from a deferred lease takeover on, which have not been touched yet.
   */
  const runGroup = async (group: readonly SQSRecord[]): Promise<SQSRecord[] | undefined> => {
    let headFailed = false;
    for (const [index, record] of group.entries()) {
      const change = { receiptHandle: record.receiptHandle, eventSourceARN: record.eventSourceARN };
      if (headFailed) {
        // Held back behind the failed message. SQS keeps the group locked while that one
        // is in flight, so these may be visible at once; returning them together with it
        // would let moto (not SQS) hand them out of order.
        failed.add(record.messageId);
        changes.push({ ...change, seconds: 0 });
        continue;
      }
      if (!batch.pickedUp.has(record.messageId)) {
        // Once per message, though a deferred takeover passes here twice.
        batch.pickedUp.add(record.messageId);
        recordQueueLatency(record, deps);
      }
      const work = () => processRecord(record, deps, options, batch);
      const outcome = await (events?.within(record.messageId, work) ?? work()).catch(
        (err: unknown) => {
          deps.logger.error('message processing failed', {
            messageId: record.messageId,
            error: describeError(err),
          });
          return { kind: 'fail' } as Outcome;
        },
      );
      if (outcome.kind === 'ack') continue;
      if (outcome.kind === 'takeover') return group.slice(index);
      headFailed = true;
      failed.add(record.messageId);
      if (outcome.kind === 'retry') {
        const seconds = Math.max(MIN_RETRY_VISIBILITY_SECONDS, visibilitySeconds(outcome.delayMs));
        changes.push({ ...change, seconds });
      }
    }
    return undefined;
  };

  // First every task that is not a lease takeover; the groups that reach one stop there.
  const limit = pLimit(deps.groupConcurrency);
  const parked = (
    await deps.takeoverGate.fresh(() =>
      Promise.all(
        groupMessages(messages).map((group) => limit(() => runGroup(group.map((m) => m.record)))),
      ),
    )
  ).filter((rest): rest is SQSRecord[] => rest !== undefined);
  // Then the takeovers, one group at a time: the attempt that lost its lease may have
  // crashed its worker, and if this one does too, the batch-mates have finished and the
  // takeovers still waiting were not claimed, so they lose no attempt (only a receive). The
  // gate extends this to the worker's other batches (poll with concurrency > 1): none of
  // them runs anything meanwhile.
  batch.phase = 'takeover';
  const leftOver: SQSRecord[][] = [];
  const runTakeovers = async (): Promise<void> => {
    for (const group of parked) {
      // Nothing is parked in this phase; should it be, it must still be reported failed,
      // never acknowledged unprocessed.
      const rest = await runGroup(group);
      if (rest !== undefined) leftOver.push(rest);
    }
  };
  if (parked.length > 0) await deps.takeoverGate.takeover(runTakeovers);
  for (const record of leftOver.flat()) {
    failed.add(record.messageId);
    changes.push({
      receiptHandle: record.receiptHandle,
      eventSourceARN: record.eventSourceARN,
      seconds: 0,
    });
  }
  // Published after every terminal write of the batch; a message whose event was not
  // accepted is handed back, and republishes it from the terminal record next time.
  const held = (await events?.flush()) ?? new Set<string>();
  for (const messageId of fifoBatchFailures(messages, held)) {
    const message = messages.find((m) => m.messageId === messageId);
    if (message === undefined || failed.has(messageId)) continue;
    failed.add(messageId);
    changes.push({
      receiptHandle: message.record.receiptHandle,
      eventSourceARN: message.record.eventSourceARN,
      seconds: eventRetrySeconds(Number(message.record.attributes.ApproximateReceiveCount)),
    });
  }
  await deps.visibility.applyAll(changes);
  return {
    batchItemFailures: fifoBatchFailures(messages, failed).map((itemIdentifier) => ({
      itemIdentifier,
    })),
  };
}

/** State shared by the records of one batch. */
interface BatchState {
  /** `fresh` while the batch's other tasks run; lease takeovers wait for `takeover`. */
  phase: 'fresh' | 'takeover';
  /** Messages whose queue latency was recorded. */
  readonly pickedUp: Set<string>;
}

async function processRecord(
  message: SQSRecord,
  deps: ProcessorDeps,
  options: BatchOptions,
  batch: BatchState,
): Promise<Outcome> {
  const parsed = parseMessage(message.body);
  if (!parsed.ok) return reject(deps, message, undefined, parsed.reason);
  let envelope: { id: string; type: string };
  let seen: TaskRecord | undefined;
  if (parsed.kind === 'firing') {
    // A recurring schedule's firing: its task is created here, once per scheduled time.
    const admission = await admitFiring(parsed.firing, message, deps);
    if (admission.kind === 'reject') {
      if (deps.firingSenders.kind === 'unconfigured') {
        deps.logger.error('firing refused: the worker is not configured to trust the scheduler', {
          messageId: message.messageId,
        });
      }
      return reject(
        deps,
        message,
        { id: admission.id, type: parsed.firing.type },
        admission.reason,
      );
    }
    if (admission.kind === 'duplicate') {
      deps.events?.redelivered(admission.record);
      return ACK;
    }
    seen = admission.record;
    envelope = { id: seen.id, type: seen.type };
  } else {
    envelope = parsed.envelope;
    seen = await deps.store.get(envelope.id);
    const group = message.attributes.MessageGroupId;
    // A message in another group than its task's would let a forged envelope jump a key's
    // queue. (A standard queue has no groups, and nothing to jump.)
    if (seen !== undefined && group !== undefined && group !== seen.messageGroupId) {
      return reject(deps, message, envelope, "message group does not match the record's");
    }
  }
  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    if (seen === undefined) return reject(deps, message, envelope, 'no task record has this id');
    if (seen.type !== envelope.type) {
      return reject(
        deps,
        message,
        envelope,
        `message type '${envelope.type}' does not match the record's '${seen.type}'`,
      );
    }
    const definition = deps.definitions.get(seen.type);
    // The handler must stop before the host does, so its timeout is cut to the invocation's
    // remaining time; with too little left, the message is handed back untouched.
    const budget = (options.remainingTimeMs?.() ?? Number.POSITIVE_INFINITY) - INVOCATION_SAFETY_MS;
    const taskTimeoutMs = definition?.timeoutMs ?? MIN_RUN_MS;
    if (budget < Math.min(taskTimeoutMs, MIN_RUN_MS)) return { kind: 'retry', delayMs: 0 };
    const timeoutMs = Math.min(taskTimeoutMs, budget);
    const decision = decideClaim(seen, deps.clock());
    try {
      switch (decision.kind) {
        case 'drop-duplicate':
          audit(deps, seen, AuditEvent.DUPLICATE_DROPPED, `already ${seen.status}`);
          deps.events?.redelivered(seen);
          return ACK;
        case 'defer':
          deps.logger.debug('message deferred', { taskId: seen.id, reason: decision.reason });
          return { kind: 'retry', delayMs: decision.delayMs };
        case 'expire':
          try {
            await deps.store.kill(
              leaseOf(seen, deps.workerId),
              seen.type,
              'lease expired on the final attempt',
              { leaseExpired: true },
            );
          } catch (err) {
            // Someone else moved the task first (the sweeper killed it, or the late worker
            // finished): decide again from what DynamoDB saw.
            if (!(err instanceof TransitionRejectedError)) throw err;
            seen = err.current;
            continue;
          }
          deps.metrics.count(TaskOutcome.DEAD);
          return ACK;
        case 'claim': {
          if (isLeaseTakeover(seen) && batch.phase === 'fresh') {
            // The last attempt may have crashed its worker. Such tasks run after the others,
            // one at a time, so a task that kills its process takes no batch-mate's attempt
            // down with it.
            return { kind: 'takeover' };
          }
          const receiveCount = message.attributes.ApproximateReceiveCount;
          const { record, lease } = await deps.store.claim(seen, {
            workerId: deps.workerId,
            leaseMs: leaseFor(timeoutMs, deps),
            detail: `message ${message.messageId}, receive ${receiveCount}`,
          });
          deps.metrics.count(TaskOutcome.STARTED);
          return await execute(record, lease, message, deps, timeoutMs);
        }
      }
    } catch (err) {
      if (!(err instanceof TransitionRejectedError) || err instanceof LeaseLostError) throw err;
      seen = err.current; // Lost a race: decide again from what DynamoDB saw.
    }
  }
  // Still contended after several rounds: let the message come back later.
  return { kind: 'retry', delayMs: 1000 };
}

async function execute(
  record: TaskRecord,
  lease: Lease,
  message: SQSRecord,
  deps: ProcessorDeps,
  timeoutMs: number,
): Promise<Outcome> {
  // A record a table writer changed or planted never runs, and is never retried.
  const tampered = await checkIntegrity({ ...deps, actor: deps.workerId }, record);
  if (tampered !== undefined) {
    const kill = () => deps.store.kill(lease, record.type, tampered.message, { error: tampered });
    return finish(deps, record, kill, TaskOutcome.DEAD);
  }
  const definition = deps.definitions.get(record.type);
  if (definition === undefined) {
    const error = new UnknownTaskTypeError(record.type, [...deps.definitions.keys()]);
    return finish(
      deps,
      record,
      () => deps.store.kill(lease, record.type, error.message, { error: errorInfo(error) }),
      TaskOutcome.DEAD,
    );
  }
  let payload: unknown;
  try {
    payload = await validatePayload(definition, record.payload);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const reason = describeInvalidPayload(err, record.payloadHash);
    return finish(
      deps,
      record,
      () =>
        deps.store.kill(lease, record.type, reason, {
          error: { name: err.name, message: reason },
        }),
      TaskOutcome.DEAD,
    );
  }

  const controller = new AbortController();
  const logger = childLogger(deps.logger, {
    taskId: record.id,
    taskType: record.type,
    attempt: lease.attempt,
  });
  const leaseMs = leaseFor(timeoutMs, deps);
  const heartbeat = async (): Promise<void> => {
    try {
      await deps.store.extendLease(lease, record.type, leaseMs);
    } catch (err) {
      // The lease is gone: stop the handler; its outcome will never be written.
      if (err instanceof LeaseLostError) controller.abort(err);
      throw err;
    }
    await deps.visibility.extend({
      receiptHandle: message.receiptHandle,
      eventSourceARN: message.eventSourceARN,
      seconds: visibilitySeconds(leaseMs),
    });
  };
  // The lease is shorter than the run may be: keep it alive while the handler works.
  const autoHeartbeat =
    leaseMs < timeoutMs + deps.leaseGraceMs
      ? setInterval(() => {
          heartbeat().catch((err: unknown) => {
            if (!(err instanceof LeaseLostError)) {
              logger.warn('automatic heartbeat failed; retrying at the next interval', {
                error: describeError(err),
              });
            }
          });
        }, leaseMs / 3)
      : undefined;
  const runStarted = deps.clock();
  const outcome = await runHandler(
    definition,
    timeoutMs,
    payload,
    {
      taskId: record.id,
      attempt: lease.attempt,
      maxAttempts: record.maxAttempts,
      logger,
      heartbeat,
    },
    controller,
  ).finally(() => {
    clearInterval(autoHeartbeat);
    deps.metrics.duration(Math.max(0, deps.clock() - runStarted));
  });

  if (outcome.ok) {
    const resultJson = serializeResult(outcome.value, deps.maxResultBytes, logger);
    return finish(
      deps,
      record,
      () => deps.store.complete(lease, record.type, resultJson),
      TaskOutcome.SUCCEEDED,
    );
  }
  if (outcome.error instanceof LeaseLostError) {
    audit(
      deps,
      record,
      AuditEvent.STALE_DROPPED,
      'lease lost during the run; result discarded, message returned',
      lease.attempt,
    );
    return LEASE_LOST;
  }
  deps.metrics.count(TaskOutcome.FAILED);
  const error = errorInfo(outcome.error);
  const permanent = isPermanent(outcome.error);
  if (permanent || lease.attempt >= record.maxAttempts) {
    const reason = permanent
      ? `permanent error: ${error.message}`
      : `failed ${lease.attempt} of ${record.maxAttempts} attempts; last error: ${error.name}: ${error.message}`;
    return finish(
      deps,
      record,
      () => deps.store.kill(lease, record.type, reason, { error }),
      TaskOutcome.DEAD,
    );
  }
  const delayMs = retryDelayMs(lease.attempt, definition.retry, deps.random);
  const written = await fencedWrite(deps, record, () =>
    deps.store.retry(lease, record.type, error, delayMs),
  );
  if (!written) return LEASE_LOST;
  deps.metrics.count(TaskOutcome.RETRIED);
  return { kind: 'retry', delayMs };
}

/** The lease a claim takes: the run's timeout plus grace, capped by the lease duration. */
function leaseFor(timeoutMs: number, deps: ProcessorDeps): number {
  return Math.min(timeoutMs + deps.leaseGraceMs, deps.leaseDurationMs);
}

/**
 * A terminal write, counted as `outcome` when it lands; the message is then done with. When
 * the lease was lost, the message is returned instead: acknowledging it would let the key's
 * next task overtake the requeued one.
 */
async function finish(
  deps: ProcessorDeps,
  record: TaskRecord,
  write: () => Promise<TaskRecord>,
  outcome: TaskOutcome,
): Promise<Outcome> {
  if (!(await fencedWrite(deps, record, write))) return LEASE_LOST;
  deps.metrics.count(outcome);
  return ACK;
}

/** Queue latency of a message's first receive (see TaskMetrics.queueLatency). */
function recordQueueLatency(message: SQSRecord, deps: ProcessorDeps): void {
  const sent = Number(message.attributes.SentTimestamp);
  if (message.attributes.ApproximateReceiveCount !== '1' || !(sent > 0)) return;
  deps.metrics.queueLatency(Math.max(0, deps.clock() - sent));
}

/**
 * Runs a fenced write. Returns false when the lease was lost: the task was requeued or taken
 * over, so this worker's outcome is dropped and audited as stale (and its message returned).
 */
async function fencedWrite(
  deps: ProcessorDeps,
  record: TaskRecord,
  write: () => Promise<TaskRecord>,
): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (!(err instanceof LeaseLostError)) throw err;
    audit(deps, err.current ?? record, AuditEvent.STALE_DROPPED, err.message, record.attempt);
    return false;
  }
}

function reject(
  deps: ProcessorDeps,
  message: SQSRecord,
  claimed: { readonly id: string; readonly type: string } | undefined,
  reason: string,
): Outcome {
  deps.logger.warn(`task.${AuditEvent.MESSAGE_REJECTED}`, {
    audit: true,
    event: AuditEvent.MESSAGE_REJECTED,
    // What the message claims to be: there is no record to take it from.
    taskId: claimed?.id,
    taskType: claimed?.type,
    attempt: 0,
    messageId: message.messageId,
    workerId: deps.workerId,
    at: new Date(deps.clock()).toISOString(),
    detail: reason,
  });
  return ACK;
}

function audit(
  deps: ProcessorDeps,
  record: TaskRecord,
  event: AuditEvent,
  detail: string,
  attempt = record.attempt,
): void {
  logAudit(deps.logger, {
    event,
    taskId: record.id,
    taskType: record.type,
    attempt,
    status: record.status,
    workerId: deps.workerId,
    at: deps.clock(),
    detail,
  });
}

function leaseOf(record: TaskRecord, workerId: string): Lease {
  return {
    taskId: record.id,
    attempt: record.attempt,
    leaseToken: record.leaseToken ?? '',
    workerId,
  };
}

function isPermanent(error: unknown): boolean {
  // `code` as well as instanceof: a bundled handler may carry its own copy of the class.
  return (
    error instanceof PermanentError ||
    (error instanceof TasklaneError && error.code === 'PERMANENT')
  );
}

function errorInfo(error: unknown): TaskErrorInfo {
  // The store bounds these again; cutting here keeps huge messages out of memory and logs.
  if (error instanceof Error)
    return { name: truncate(error.name, 100), message: truncate(error.message, 1000) };
  return { name: 'NonError', message: truncate(String(error), 1000) };
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function serializeResult(value: unknown, maxBytes: number, logger: TaskLogger): string | undefined {
  if (value === undefined) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    logger.warn('result is not JSON-serializable and was not stored', {
      error: describeError(err),
    });
    return undefined;
  }
  if (json !== undefined && Buffer.byteLength(json, 'utf8') > maxBytes) {
    // The work is done; re-running it to shrink the result would duplicate its effects.
    logger.warn('result exceeds the size limit and was not stored', { limitBytes: maxBytes });
    return undefined;
  }
  return json;
}

function childLogger(logger: TaskLogger, fields: Record<string, unknown>): TaskLogger {
  return {
    debug: (m, a) => logger.debug(m, { ...fields, ...a }),
    info: (m, a) => logger.info(m, { ...fields, ...a }),
    warn: (m, a) => logger.warn(m, { ...fields, ...a }),
    error: (m, a) => logger.error(m, { ...fields, ...a }),
  };
}
