/**
 * From a message to a claimed task: parse it, find (or, for a firing, create) its record,
 * check the message against the record, then decide and claim, deciding again from what
 * DynamoDB saw whenever another actor won a race.
 */
import type { SQSRecord } from 'aws-lambda';
import { AuditEvent } from '../constants.js';
import { TransitionRejectedError } from '../errors.js';
import { parseMessage } from '../message.js';
import { logAudit } from '../observability/audit.js';
import { TaskOutcome } from '../observability/metrics.js';
import type { TaskRecord } from '../store/record.js';
import { decideClaim, isLeaseTakeover } from './claim-decision.js';
import {
  ACK,
  auditTask,
  type BatchOptions,
  leaseFor,
  type Outcome,
  type ProcessorDeps,
} from './deps.js';
import { type ClaimedTask, execute } from './execution.js';
import { admitFiring } from './firing.js';
import { holdParkedKey } from './parked.js';

/** `fresh` while the batch's other tasks run; lease takeovers wait for `takeover`. */
export type BatchPhase = 'fresh' | 'takeover';

/** What a message claims to be: there may be no record to take it from. */
interface Envelope {
  readonly id: string;
  readonly type: string;
}

/** One round of the claim loop: done, a task to run, or a lost race to decide again. */
type Step =
  | { readonly kind: 'done'; readonly outcome: Outcome }
  | { readonly kind: 'run'; readonly task: ClaimedTask }
  | { readonly kind: 'again'; readonly current: TaskRecord | undefined };

const CLAIM_ROUNDS = 3;
/** Time kept back from an invocation's deadline to record the outcome. */
const INVOCATION_SAFETY_MS = 3_000;
/** With less budget than this (or than the task's own timeout), a task is not started. */
const MIN_RUN_MS = 1_000;

/** Takes one message from its body to its outcome. */
export async function processRecord(
  message: SQSRecord,
  deps: ProcessorDeps,
  options: BatchOptions,
  phase: BatchPhase,
): Promise<Outcome> {
  const found = await findRecord(message, deps);
  if (found.kind === 'done') return found.outcome;
  const { envelope } = found;
  let seen = found.seen;
  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    if (seen === undefined) return reject(deps, message, envelope, 'no task record has this id');
    if (seen.type !== envelope.type) {
      const reason = `message type '${envelope.type}' does not match the record's '${seen.type}'`;
      return reject(deps, message, envelope, reason);
    }
    const step = await decide(seen, message, deps, options, phase).catch(lostRace);
    if (step.kind === 'done') return step.outcome;
    if (step.kind === 'run') return execute(step.task, deps);
    seen = step.current;
  }
  // Still contended after several rounds: let the message come back later.
  return { kind: 'retry', delayMs: 1000 };
}

/** The record a message names, or (for a firing) the one it creates; or its rejection. */
async function findRecord(
  message: SQSRecord,
  deps: ProcessorDeps,
): Promise<
  | { readonly kind: 'found'; readonly envelope: Envelope; readonly seen: TaskRecord | undefined }
  | { readonly kind: 'done'; readonly outcome: Outcome }
> {
  const parsed = parseMessage(message.body);
  if (!parsed.ok) return { kind: 'done', outcome: reject(deps, message, undefined, parsed.reason) };
  if (parsed.kind === 'firing') {
    // A recurring schedule's firing: its task is created here, once per scheduled time.
    const admission = await admitFiring(parsed.firing, message, deps);
    if (admission.kind === 'duplicate') {
      // Perhaps back because its terminal event was not accepted: published again.
      deps.events?.redelivered(admission.record);
      return { kind: 'done', outcome: ACK };
    }
    if (admission.kind === 'run') {
      const seen = admission.record;
      return { kind: 'found', envelope: { id: seen.id, type: seen.type }, seen };
    }
    if (deps.firingSenders.kind === 'unconfigured') {
      deps.logger.error('firing refused: the worker is not configured to trust the scheduler', {
        messageId: message.messageId,
      });
    }
    const claimed = { id: admission.id, type: parsed.firing.type };
    return { kind: 'done', outcome: reject(deps, message, claimed, admission.reason) };
  }
  const { envelope } = parsed;
  const seen = await deps.store.get(envelope.id);
  const group = message.attributes.MessageGroupId;
  // A message in another group than its task's would let a forged envelope jump a key's
  // queue. (A standard queue has no groups, and nothing to jump.)
  if (seen !== undefined && group !== undefined && group !== seen.messageGroupId) {
    const reason = "message group does not match the record's";
    return { kind: 'done', outcome: reject(deps, message, envelope, reason) };
  }
  return { kind: 'found', envelope, seen };
}

/** One round: acts on the claim decision for the record seen. */
async function decide(
  seen: TaskRecord,
  message: SQSRecord,
  deps: ProcessorDeps,
  options: BatchOptions,
  phase: BatchPhase,
): Promise<Step> {
  const definition = deps.definitions.get(seen.type);
  // The handler must stop before the host does, so its timeout is cut to the invocation's
  // remaining time; with too little left, the message is handed back untouched.
  const budget = (options.remainingTimeMs?.() ?? Number.POSITIVE_INFINITY) - INVOCATION_SAFETY_MS;
  const taskTimeoutMs = definition?.timeoutMs ?? MIN_RUN_MS;
  if (budget < Math.min(taskTimeoutMs, MIN_RUN_MS)) return done({ kind: 'retry', delayMs: 0 });
  const timeoutMs = Math.min(taskTimeoutMs, budget);
  const decision = decideClaim(seen, deps.clock());
  switch (decision.kind) {
    case 'drop-duplicate':
      auditTask(deps, seen, AuditEvent.DUPLICATE_DROPPED, `already ${seen.status}`);
      deps.events?.redelivered(seen);
      return done(ACK);
    case 'defer':
      deps.logger.debug('message deferred', { taskId: seen.id, reason: decision.reason });
      return done({ kind: 'retry', delayMs: decision.delayMs });
    case 'hold-parked':
      return done(await holdParkedKey(seen, message, deps));
    case 'expire': {
      const dead = await deps.store.expire(
        seen,
        'lease expired on the final attempt',
        deps.workerId,
      );
      deps.metrics.count(TaskOutcome.DEAD);
      return done(dead.parkedKey === undefined ? ACK : await holdParkedKey(dead, message, deps));
    }
    case 'claim': {
      if (isLeaseTakeover(seen) && phase === 'fresh') {
        // The last attempt may have crashed its worker. Such tasks run after the others,
        // one at a time, so a task that kills its process takes no batch-mate's attempt
        // down with it.
        return done({ kind: 'takeover' });
      }
      const receiveCount = message.attributes.ApproximateReceiveCount;
      // The rate limit's start comes before the claim: a task over the limit goes back to
      // the queue with no attempt used and nothing written to its record (ADR 0026).
      const admission = await deps.rateLimits.admit(definition, seen, {
        maxWaitMs: budget - timeoutMs,
        receiveCount: Number(receiveCount) || 1,
      });
      if (admission.kind === 'defer') {
        deps.logger.debug('message deferred', { taskId: seen.id, reason: admission.reason });
        return done({ kind: 'retry', delayMs: admission.delayMs });
      }
      const { record, lease } = await deps.store.claim(seen, {
        workerId: deps.workerId,
        leaseMs: leaseFor(timeoutMs, deps),
        detail: `message ${message.messageId}, receive ${receiveCount}`,
      });
      deps.metrics.count(TaskOutcome.STARTED);
      return { kind: 'run', task: { record, lease, message, timeoutMs } };
    }
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
