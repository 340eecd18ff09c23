/**
 * The run of a claimed task: its handler under the timeout, the heartbeat, and the fenced
 * write of the outcome (SUCCEEDED, a retry, or DEAD).
 */
import { payloadSource } from '../claim-check/payload-source.js';
import { AuditEvent, Defaults } from '../core/constants.js';
import {
  errorInfo,
  isPermanentError,
  LeaseLostError,
  TaskPausedError,
  UnknownTaskTypeError,
  ValidationError,
} from '../core/errors.js';
import type { TaskErrorInfo, TaskRecord } from '../core/record.js';
import { checkIntegrity } from '../integrity/check.js';
import type { TaskLogger } from '../observability/logger.js';
import { TaskOutcome } from '../observability/metrics.js';
import { keyToPark } from '../store/transitions/parking.js';
import { isContinuation } from '../tasks/durable.js';
import {
  describeInvalidPayload,
  type TaskDefinition,
  validatePayload,
} from '../tasks/task-definition.js';
import { retryDelayMs } from './backoff.js';
import type { Checked } from './claim-check.js';
import type { ClaimedTask } from './claimed-task.js';
import { readParents, releaseAfter } from './dependents.js';
import { ACK, auditTask, LEASE_LOST, leaseFor, type Outcome, type ProcessorDeps } from './deps.js';
import { DurableSlice } from './durable-slice.js';
import { holdParkedKey } from './feature-deps.js';
import { Heartbeat } from './heartbeat.js';
import { sentAt } from './hold-budget.js';
import { Dependency, unclaimAfterOutage } from './outage.js';
import { keepResult } from './result-upload.js';
import { retryOffIndex } from './retry-filing.js';
import { cancelledDetail, pausedDetail } from './run-decisions.js';
import { type HandlerOutcome, runHandler } from './run-handler.js';

export type { ClaimedTask } from './claimed-task.js';

/**
 * Runs a claimed task's handler and writes its outcome under the lease, which is kept alive
 * from the claim on: a slow payload download or result upload does not lose it.
 */
export async function execute(task: ClaimedTask, deps: ProcessorDeps): Promise<Outcome> {
  const controller = new AbortController();
  const leaseMs = leaseFor(task.timeoutMs, deps);
  const heartbeat = new Heartbeat(deps, task, task.message, leaseMs, controller);
  heartbeat.hold();
  try {
    return await executeHeld(task, deps, heartbeat, controller);
  } finally {
    heartbeat.stop();
  }
}

async function executeHeld(
  task: ClaimedTask,
  deps: ProcessorDeps,
  heartbeat: Heartbeat,
  controller: AbortController,
): Promise<Outcome> {
  // A record a table writer changed or planted never runs, and is never retried; a check
  // KMS could not make is no verdict: the claim is given back unspent.
  let tampered: TaskErrorInfo | undefined;
  try {
    tampered = await checkIntegrity({ ...deps, actor: deps.workerId }, task.record);
  } catch (err) {
    return unclaimAfterOutage(task, deps, Dependency.KMS, err);
  }
  if (tampered !== undefined) return kill(task, deps, tampered.message, tampered);
  if (task.record.cancelRequested) {
    const detail = `cancel requested before attempt ${task.lease.attempt} started; not run`;
    return endCancelled(task, deps, detail);
  }
  const definition = deps.definitions.get(task.record.type);
  if (definition === undefined) {
    const error = new UnknownTaskTypeError(task.record.type, [...deps.definitions.keys()]);
    return kill(task, deps, error.message, errorInfo(error));
  }
  let resolved: Checked<TaskRecord>;
  try {
    // Read as the integrity check read it. A claim-checked payload's read loads with the
    // optional features; a load that fails is a read that failed, given back unspent.
    if (payloadSource(task.record).kind === 'inline') resolved = { ok: true, value: task.record };
    else {
      const { resolvePayload } = await import('./optional-features.js');
      resolved = await resolvePayload(task.record, deps, controller.signal);
    }
  } catch (err) {
    // The read is aborted when a keep-alive beat finds the lease gone or a cancel request.
    if (controller.signal.reason instanceof LeaseLostError) return dropStale(task, deps);
    if (heartbeat.cancelled) {
      const detail = `cancel requested before attempt ${task.lease.attempt} started; not run`;
      return endCancelled(task, deps, detail);
    }
    return unclaimAfterOutage(task, deps, Dependency.S3, err);
  }
  if (!resolved.ok) return kill(task, deps, resolved.error.message, errorInfo(resolved.error));
  const record = resolved.value;
  let payload: unknown;
  try {
    payload = await validatePayload(definition, record.payload);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const reason = describeInvalidPayload(err, record.payloadHash);
    return kill(task, deps, reason, { name: err.name, message: reason });
  }
  const logger = childLogger(deps.logger, {
    taskId: record.id,
    taskType: record.type,
    attempt: task.lease.attempt,
  });
  try {
    await heartbeat.start(task.timeoutMs, logger);
  } catch (err) {
    if (!(err instanceof LeaseLostError)) throw err;
  }
  if (controller.signal.reason instanceof LeaseLostError) return dropStale(task, deps);
  if (heartbeat.cancelled) {
    const detail = `cancel requested before attempt ${task.lease.attempt} started; not run`;
    return endCancelled(task, deps, detail);
  }
  if (task.record.pauseRequested === true || heartbeat.paused) {
    const detail = `pause requested before attempt ${task.lease.attempt} started; not run`;
    const { endPaused } = await import('./durable-features.js');
    return endPaused(task, deps, heartbeat, detail);
  }
  let checkpoint: unknown;
  try {
    checkpoint = await loadCheckpoint(record, deps);
  } catch (err) {
    return unclaimAfterOutage(task, deps, Dependency.S3, err);
  }
  const durable = new DurableSlice(task, deps, heartbeat, controller, checkpoint);
  const outcome = await run(
    task,
    definition,
    payload,
    deps,
    heartbeat,
    controller,
    logger,
    durable,
  );
  if (durable.ending !== undefined) {
    const cancel = () => endCancelled(task, deps, 'cancelled as the run began to wait');
    const { endWaiting } = await import('./durable-features.js');
    return endWaiting(task, durable.ending, deps, heartbeat, cancel);
  }
  if (outcome.cancelled) return endCancelled(task, deps, cancelledDetail(outcome));
  // A pause seen during the run ends it PAUSED, unless the handler returned its result.
  if (heartbeat.paused && !(outcome.ok && !isContinuation(outcome.value))) {
    const { endPaused } = await import('./durable-features.js');
    return endPaused(task, deps, heartbeat, pausedDetail(outcome));
  }
  const ended = await endDurable(task, definition, outcome, durable, heartbeat, deps);
  if (ended !== undefined) return ended;
  if (outcome.ok) {
    const stored = await keepResult(outcome.value, task, deps, heartbeat, controller, logger);
    if (stored.kind === 'lost') return dropStale(task, deps);
    if (stored.kind === 'refused') {
      return kill(task, deps, stored.error.message, errorInfo(stored.error));
    }
    const { json, ref, note } = stored.value;
    const complete = () => deps.store.complete(task.lease, json, ref, note);
    return finish(deps, record, complete, TaskOutcome.SUCCEEDED);
  }
  return settleFailure(task, definition, outcome.error, deps);
}

/** Audits a claim whose lease a keep-alive beat found gone, and returns its message. */
function dropStale(task: ClaimedTask, deps: ProcessorDeps): Outcome {
  const detail = 'lease lost before the outcome was written; message returned';
  auditTask(deps, task.record, AuditEvent.STALE_DROPPED, detail, task.lease.attempt);
  return LEASE_LOST;
}

/**
 * The handler's run, with the heartbeat kept while it works; `cancelled` when a heartbeat
 * saw a cancel request during it.
 */
async function run(
  task: ClaimedTask,
  definition: TaskDefinition,
  payload: unknown,
  deps: ProcessorDeps,
  heartbeat: Heartbeat,
  controller: AbortController,
  logger: TaskLogger,
  durable: DurableSlice,
): Promise<HandlerOutcome & { readonly cancelled: boolean }> {
  const { record, lease, timeoutMs } = task;
  const runStarted = deps.clock();
  const context = {
    ...durable.context(),
    taskId: record.id,
    attempt: lease.attempt,
    maxAttempts: record.maxAttempts,
    logger,
    heartbeat: async () => {
      await heartbeat.beat();
      // A run ends at its next heartbeat once a pause was asked for.
      if (heartbeat.paused && !heartbeat.cancelled) throw new TaskPausedError(record.id);
    },
    progress: heartbeat.progress,
    parents: () => readParents(record, deps),
  };
  // A run that suspended ends at once: its handler's sleep or wait never returns.
  const suspended = durable.ended.then(
    (): HandlerOutcome => ({ ok: false, error: undefined, timedOut: false }),
  );
  const handled = runHandler(definition, timeoutMs, payload, context, controller);
  const outcome = await Promise.race([handled, suspended]).finally(() => {
    heartbeat.stop();
    deps.metrics.duration(Math.max(0, deps.clock() - runStarted));
  });
  return { ...outcome, cancelled: heartbeat.cancelled };
}

/**
 * How a durable run ends, when it is not a plain success or failure: given back unspent
 * after an S3 outage, DEAD for a replay that did not match (`NON_DETERMINISTIC`) or a step
 * result that could not be stored, or continued (docs/adr/0047-durable-tasks.md).
 */
async function endDurable(
  task: ClaimedTask,
  definition: TaskDefinition,
  outcome: HandlerOutcome,
  durable: DurableSlice,
  heartbeat: Heartbeat,
  deps: ProcessorDeps,
): Promise<Outcome | undefined> {
  if (durable.outage !== undefined) {
    return unclaimAfterOutage(task, deps, Dependency.S3, durable.outage, true);
  }
  const fatal = durable.fatal;
  if (fatal !== undefined) {
    return kill(task, deps, `${fatal.code}: ${fatal.message}`, errorInfo(fatal));
  }
  if (!outcome.ok || !isContinuation(outcome.value)) return undefined;
  const done = task.record.continuations ?? 0;
  const max = definition.maxContinuations ?? Defaults.MAX_CONTINUATIONS;
  if (done >= max) {
    const reason = `continued ${done} times, the type's maxContinuations; not continued again`;
    return kill(task, deps, reason, { name: 'ContinuationLimit', message: reason });
  }
  try {
    // The durable run's writes load with its machinery (docs/adr/0070-store-parts-on-first-use.md).
    const { DurableWrites } = await import('./durable-features.js');
    const writes = deps.store.feature(DurableWrites);
    await writes.continueRun(task.lease, done, max, heartbeat.takePending());
  } catch (err) {
    if (!(err instanceof LeaseLostError)) throw err;
    return dropStale(task, deps);
  }
  // Not acknowledged: the message comes back at once, still at the head of its group.
  return { kind: 'retry', delayMs: 0 };
}

/** The checkpoint an earlier run saved: inline on the record, or read from the bucket. */
async function loadCheckpoint(record: TaskRecord, deps: ProcessorDeps): Promise<unknown> {
  if (record.checkpointRef !== undefined) {
    return JSON.parse(await deps.objects.read(record.checkpointRef));
  }
  return record.checkpoint;
}

/** RUNNING → CANCELLED under the lease, after a cancel request; never retried. */
async function endCancelled(task: ClaimedTask, deps: ProcessorDeps, detail: string) {
  let cancelled: TaskRecord | undefined;
  const write = async () => {
    cancelled = await deps.store.cancelRunning(task.lease, detail);
    return cancelled;
  };
  if (!(await fencedWrite(deps, task.record, write))) return LEASE_LOST;
  await releaseAfter(cancelled, deps);
  return ACK;
}

/** After a failed run: dropped when the lease was lost, else retried or declared DEAD. */
async function settleFailure(
  task: ClaimedTask,
  definition: TaskDefinition,
  failure: unknown,
  deps: ProcessorDeps,
): Promise<Outcome> {
  const { record, lease } = task;
  if (failure instanceof LeaseLostError) {
    auditTask(
      deps,
      record,
      AuditEvent.STALE_DROPPED,
      'lease lost during the run; result discarded, message returned',
      lease.attempt,
    );
    return LEASE_LOST;
  }
  deps.metrics.count(TaskOutcome.FAILED);
  const error = errorInfo(failure);
  const permanent = isPermanentError(failure);
  if (permanent || lease.attempt >= record.maxAttempts) {
    const reason = permanent
      ? `permanent error: ${error.message}`
      : `failed ${lease.attempt} of ${record.maxAttempts} attempts; last error: ${error.name}: ${error.message}`;
    return kill(task, deps, reason, error);
  }
  const delayMs = retryDelayMs(lease.attempt, definition.retry, deps.random);
  const retentionMs = await deps.retentions?.of(task.message.eventSourceARN);
  const offIndex = retryOffIndex(sentAt(task.message), retentionMs, deps.clock(), delayMs);
  const written = await fencedWrite(deps, record, () =>
    deps.store.retry(lease, error, delayMs, offIndex),
  );
  if (!written) return LEASE_LOST;
  deps.metrics.count(TaskOutcome.RETRIED);
  return { kind: 'retry', delayMs };
}

/** The DEAD write; a parking type's task then holds its key with its message. */
async function kill(
  task: ClaimedTask,
  deps: ProcessorDeps,
  reason: string,
  error: TaskErrorInfo,
): Promise<Outcome> {
  const { record, lease } = task;
  const parkedKey = keyToPark(record, deps.definitions.get(record.type)?.onDead);
  let dead: TaskRecord | undefined;
  const write = async () => {
    dead = await deps.store.kill(lease, reason, { error, parkedKey });
    return dead;
  };
  const outcome = await finish(deps, record, write, TaskOutcome.DEAD);
  return dead?.parkedKey === undefined ? outcome : holdParkedKey(dead, task.message, deps);
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
  let written: TaskRecord | undefined;
  const landed = await fencedWrite(deps, record, async () => {
    written = await write();
    return written;
  });
  if (!landed) return LEASE_LOST;
  deps.metrics.count(outcome);
  await releaseAfter(written, deps);
  return ACK;
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
    auditTask(deps, err.current ?? record, AuditEvent.STALE_DROPPED, err.message, record.attempt);
    return false;
  }
}

function childLogger(logger: TaskLogger, fields: Record<string, unknown>): TaskLogger {
  return {
    debug: (m, a) => logger.debug(m, { ...fields, ...a }),
    info: (m, a) => logger.info(m, { ...fields, ...a }),
    warn: (m, a) => logger.warn(m, { ...fields, ...a }),
    error: (m, a) => logger.error(m, { ...fields, ...a }),
  };
}
