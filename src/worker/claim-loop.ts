/**
 * From a message to a claimed task: parse it (for a firing, create its record), claim the
 * task it names, and when the claim is refused, decide from the record DynamoDB saw: reject a
 * message that does not match it, drop a duplicate, defer, expire, park a takeover, or claim
 * again as seen.
 */
import type { SQSRecord } from 'aws-lambda';
import { AuditEvent } from '../core/constants.js';
import { TransitionRejectedError } from '../core/errors.js';
import {
  inTaskGroup,
  namesEarlierRecord,
  orderingKeyOfGroup,
  parseMessage,
} from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import { logAudit } from '../observability/audit.js';
import { TaskOutcome } from '../observability/metrics.js';
import { registeredTracing } from '../observability/tracing.js';
import type { ClaimTarget } from '../store/task-store.js';
import { decideClaim, isLeaseTakeover } from './claim-decision.js';
import { releaseAfter } from './dependents.js';
import {
  ACK,
  auditTask,
  type BatchOptions,
  leaseFor,
  type Outcome,
  type ProcessorDeps,
} from './deps.js';
import { type ClaimedTask, execute } from './execution.js';
import { holdParkedKey } from './feature-deps.js';

/** `fresh` while the batch's other tasks run; lease takeovers wait for `takeover`. */
export type BatchPhase = 'fresh' | 'takeover';

/** What a message claims to be: there may be no record to take it from. */
interface Envelope {
  readonly id: string;
  readonly type: string;
  /** The message's group, which must be the record's; undefined where not checked. */
  readonly group?: string | undefined;
  /** The task's ordering key, as far as the message tells it (a rate limit's `perKey`). */
  readonly orderingKey?: string | undefined;
  /** The `createdAt` of the task the message was sent for, when it names one (ADR 0063). */
  readonly createdAt?: number | undefined;
}

/** One round of the claim loop: done, a task to run, or a lost race to decide again. */
type Step =
  | { readonly kind: 'done'; readonly outcome: Outcome }
  | { readonly kind: 'run'; readonly task: ClaimedTask }
  | { readonly kind: 'again'; readonly current: TaskRecord | undefined };

const CLAIM_ROUNDS = 3;
/**
 * The record a parked takeover was refused with in the fresh phase, by message: the takeover
 * phase claims from it instead of guessing the attempt again (a requeued task's new message
 * says nothing of its attempts). Only a start: a record that moved meanwhile is refused.
 */
const parkedRecords = new WeakMap<SQSRecord, TaskRecord>();
/** Time kept back from an invocation's deadline to record the outcome. */
const INVOCATION_SAFETY_MS = 3_000;
/** With less budget than this (or than the task's own timeout), a task is not started. */
const MIN_RUN_MS = 1_000;

/**
 * Takes one message from its body to its outcome. The claim comes first, without reading
 * the record (docs/adr/0020-claim-without-pre-read.md); only when DynamoDB refuses it does
 * the worker decide, from the record returned with the refusal, as it used to from a read.
 */
export async function processRecord(
  message: SQSRecord,
  deps: ProcessorDeps,
  options: BatchOptions,
  phase: BatchPhase,
): Promise<Outcome> {
  const found = await findTarget(message, deps);
  if (found.kind === 'done') return found.outcome;
  const { envelope } = found;
  let target: ClaimTarget = parkedRecords.get(message) ?? found.target;
  parkedRecords.delete(message);
  const start = { admitted: false };
  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    const step = await claimOrDecide(target, envelope, message, deps, options, phase, start).catch(
      lostRace,
    );
    if (step.kind === 'done') return step.outcome;
    if (step.kind === 'run') return executeAttempt(step.task, message, deps);
    if (step.current === undefined) {
      return reject(deps, message, envelope, 'no task record has this id');
    }
    target = step.current;
  }
  // Still contended after several rounds: let the message come back later.
  return { kind: 'retry', delayMs: 1000 };
}

/**
 * The attempt a message's task is most likely at: one per earlier receive of the message,
 * since a retry returns the same message. Only a guess: the claim is fenced by it, so a
 * wrong one (a message held back or deferred, a requeue's new message) costs one refused
 * write, whose ALL_OLD record gives the right attempt for the next round.
 */
function expectedAttempt(message: SQSRecord): number {
  const receives = Number(message.attributes.ApproximateReceiveCount);
  return Number.isInteger(receives) && receives > 1 ? receives - 1 : 0;
}

/** What the first claim names; or the message's rejection (or a firing's end). */
async function findTarget(
  message: SQSRecord,
  deps: ProcessorDeps,
): Promise<
  | { readonly kind: 'found'; readonly envelope: Envelope; readonly target: ClaimTarget }
  | { readonly kind: 'done'; readonly outcome: Outcome }
> {
  const parsed = parseMessage(message.body);
  if (!parsed.ok) return { kind: 'done', outcome: reject(deps, message, undefined, parsed.reason) };
  if (parsed.kind === 'firing') {
    // A recurring schedule's firing: its task is created here, once per scheduled time. The
    // code is loaded by the first firing (docs/adr/0069-worker-chunks.md).
    const { admitFiring } = await import('./optional-features.js');
    const admission = await admitFiring(parsed.firing, message, deps);
    if (admission.kind === 'duplicate') {
      // Perhaps back because its terminal event was not accepted: published again.
      deps.events?.redelivered(admission.record);
      return { kind: 'done', outcome: ACK };
    }
    if (admission.kind === 'run') {
      const seen = admission.record;
      const envelope = { id: seen.id, type: seen.type, orderingKey: seen.orderingKey };
      return { kind: 'found', envelope, target: seen };
    }
    if (deps.firingSenders.kind === 'unconfigured') {
      deps.logger.error('firing refused: the worker is not configured to trust the scheduler', {
        messageId: message.messageId,
      });
    }
    const claimed = { id: admission.id, type: parsed.firing.type };
    return { kind: 'done', outcome: reject(deps, message, claimed, admission.reason) };
  }
  // A message in another group than its task's would let a forged envelope jump a key's
  // queue: the claim is fenced by the group. (A standard queue has no groups, nothing to jump.)
  const group = message.attributes.MessageGroupId;
  // A task's group is its ordering key, or an unkeyed group of its own (core/message.ts).
  const orderingKey = orderingKeyOfGroup(group, parsed.envelope.id);
  const envelope = { ...parsed.envelope, group, orderingKey };
  const target = {
    id: envelope.id,
    type: envelope.type,
    attempt: expectedAttempt(message),
    messageGroupId: group,
    createdAt: envelope.createdAt,
  };
  return { kind: 'found', envelope, target };
}

/**
 * One round: claims the target, or decides from the record that refused the claim. A rate
 * limited type takes its start first, once per message (`start`): a task over the limit goes
 * back to the queue with no attempt used and nothing written to its record (ADR 0026). A
 * start taken for a claim that is then refused is spent, never doubled.
 */
async function claimOrDecide(
  target: ClaimTarget,
  envelope: Envelope,
  message: SQSRecord,
  deps: ProcessorDeps,
  options: BatchOptions,
  phase: BatchPhase,
  start: { admitted: boolean },
): Promise<Step> {
  const definition = deps.definitions.get(envelope.type);
  // The handler must stop before the host does, so its timeout is cut to the invocation's
  // remaining time; with too little left, the message is handed back untouched.
  const budget = (options.remainingTimeMs?.() ?? Number.POSITIVE_INFINITY) - INVOCATION_SAFETY_MS;
  const taskTimeoutMs = definition?.timeoutMs ?? MIN_RUN_MS;
  if (budget < Math.min(taskTimeoutMs, MIN_RUN_MS)) return done({ kind: 'retry', delayMs: 0 });
  const timeoutMs = Math.min(taskTimeoutMs, budget);
  const receiveCount = message.attributes.ApproximateReceiveCount;
  // A type without a rate limit takes no start: the limiter is never loaded for it.
  if (!start.admitted && definition?.rateLimit !== undefined) {
    const admission = await deps.rateLimits.admit(definition, envelope, {
      maxWaitMs: budget - timeoutMs,
    });
    if (admission.kind === 'defer') {
      deps.logger.debug('message deferred', { taskId: envelope.id, reason: admission.reason });
      // Handed back at once, not when the batch ends: its return time is its place in the
      // bucket's line, which the batch's sleeping starts and running handlers must not push.
      return done({ kind: 'retry', delayMs: admission.delayMs });
    }
    start.admitted = true;
  }
  try {
    const { record, lease } = await deps.store.claim(target, {
      workerId: deps.workerId,
      leaseMs: leaseFor(timeoutMs, deps),
      // The log line keeps the delivery; the history keeps the attempt (docs/adr/0027-compact-history.md).
      log: { messageId: message.messageId, receiveCount },
      fresh: phase === 'fresh',
    });
    deps.metrics.count(TaskOutcome.STARTED);
    const task = {
      record,
      lease,
      message,
      timeoutMs,
      takeover: phase === 'takeover',
      receiveCount: Number(receiveCount) || 1,
      remainingMs: options.remainingTimeMs,
    };
    return { kind: 'run', task };
  } catch (err) {
    if (!(err instanceof TransitionRejectedError)) throw err;
    return decide(err.current, envelope, message, deps, phase);
  }
}

/** After a refused claim: acts on the claim decision for the record DynamoDB returned. */
async function decide(
  current: TaskRecord | undefined,
  envelope: Envelope,
  message: SQSRecord,
  deps: ProcessorDeps,
  phase: BatchPhase,
): Promise<Step> {
  if (current === undefined)
    return done(reject(deps, message, envelope, 'no task record has this id'));
  if (namesEarlierRecord(envelope, current)) {
    // A message of an earlier task of this id, purged since: a crashed worker's, or a dead
    // letter moved back. It must not run the task enqueued again under the id (ADR 0063).
    const reason = `message is for an earlier task of this id (created at ${envelope.createdAt}, the record at ${current.createdAt})`;
    return done(reject(deps, message, envelope, reason));
  }
  if (current.type !== envelope.type) {
    const reason = `message type '${envelope.type}' does not match the record's '${current.type}'`;
    return done(reject(deps, message, envelope, reason));
  }
  if (envelope.group !== undefined && !inTaskGroup(current, envelope.group)) {
    const reason = "message group does not match the record's";
    return done(reject(deps, message, envelope, reason));
  }
  const decision = decideClaim(current, deps.clock());
  switch (decision.kind) {
    case 'drop-duplicate':
      auditTask(deps, current, AuditEvent.DUPLICATE_DROPPED, `already ${current.status}`);
      deps.events?.redelivered(current);
      return done(ACK);
    case 'defer':
      deps.logger.debug('message deferred', { taskId: current.id, reason: decision.reason });
      return done({ kind: 'retry', delayMs: decision.delayMs });
    case 'hold': {
      // A sender no longer wakes the task itself: its message finds the signal in the task's
      // head, and wakes it before the claim (docs/adr/0066-signal-head-off-the-task-item.md).
      // A message that finds none (a stray, a forged wake) is held as any early delivery.
      const holds = await import('./optional-features.js');
      const woken = await holds.wakeIfSignalled(current, deps);
      if (woken !== undefined) return { kind: 'again', current: woken };
      deps.logger.debug('message held', { taskId: current.id, reason: decision.reason });
      return done(await holds.holdMessage(current, message, decision.delayMs, deps));
    }
    case 'drop-paused':
      auditTask(deps, current, AuditEvent.DUPLICATE_DROPPED, 'paused; its resume sends it again');
      return done(ACK);
    case 'hold-parked':
      // Each return of the held message publishes the task's Dead event again: the first
      // delivery's may have been refused, and the hold keeps the message from the events'
      // own redelivery (docs/adr/0032-parked-keys-lanes-and-groups.md).
      deps.events?.redelivered(current);
      return done(await holdParkedKey(current, message, deps));
    case 'expire': {
      const dead = await deps.store.expire(
        current,
        'lease expired on the final attempt',
        deps.workerId,
      );
      deps.metrics.count(TaskOutcome.DEAD);
      await releaseAfter(dead, deps);
      return done(dead.parkedKey === undefined ? ACK : await holdParkedKey(dead, message, deps));
    }
    case 'claim':
      if (isLeaseTakeover(current) && phase === 'fresh') {
        // The last attempt may have crashed its worker. Such tasks run after the others,
        // one at a time, so a task that kills its process takes no batch-mate's attempt
        // down with it.
        parkedRecords.set(message, current);
        return done({ kind: 'takeover' });
      }
      // Claimable, at another attempt than the one named, or moved since: claim it as seen.
      return { kind: 'again', current };
  }
}

function done(outcome: Outcome): Step {
  return { kind: 'done', outcome };
}

/**
 * Another actor moved the task first (a worker claimed it, the sweeper expired it, the late
 * worker finished): decide again from what DynamoDB saw. Expiring is fenced by the lease the
 * record showed, so its refusal is a LeaseLostError, a lost race all the same.
 */
function lostRace(err: unknown): Step {
  if (!(err instanceof TransitionRejectedError)) throw err;
  return { kind: 'again', current: err.current };
}

/** Acknowledges a message that names no task this worker believes, with an audit line. */
function reject(
  deps: ProcessorDeps,
  message: SQSRecord,
  claimed: Envelope | undefined,
  reason: string,
): Outcome {
  logAudit(
    deps.logger,
    {
      event: AuditEvent.MESSAGE_REJECTED,
      taskId: claimed?.id,
      taskType: claimed?.type,
      attempt: 0,
      status: undefined,
      workerId: deps.workerId,
      at: deps.clock(),
      detail: reason,
    },
    { level: 'warn', fields: { messageId: message.messageId } },
  );
  return ACK;
}

/**
 * Runs a claimed task ({@link execute}), inside its attempt's span when the app registered a
 * tracer: the span's code (./attempt-span.ts) is loaded then, with the optional features
 * (docs/adr/0070-store-parts-on-first-use.md).
 */
async function executeAttempt(
  task: ClaimedTask,
  message: SQSRecord,
  deps: ProcessorDeps,
): Promise<Outcome> {
  const tracing = registeredTracing(deps.tracing);
  if (tracing === undefined) return execute(task, deps);
  const { executeTraced } = await import('./optional-features.js');
  return executeTraced(tracing, task, message, deps, execute);
}
