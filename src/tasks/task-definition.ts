import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { TaskStatus } from '../core/constants.js';
import { Defaults, OnDead } from '../core/constants.js';
import { ValidationError, type ValidationIssue } from '../core/errors.js';
import type { TaskLogger } from '../observability/logger.js';
import { DEFAULT_LANE, laneNameProblem } from '../settings/lanes.js';
import type { DurableContext } from './durable.js';
import { type RateLimit, type ResolvedRateLimit, resolveRateLimit } from './rate-limit.js';
import { retryHorizonIssue } from './retry-horizon.js';

/** Retry policy of a task type. Delays grow exponentially with full jitter, capped. */
export interface RetryPolicy {
  /** Attempts in all, the first included; 1 means no retry. @default 3 */
  readonly maxAttempts?: number;
  /** Cap of the first retry's jittered delay, in ms; doubles per attempt. @default 1000 */
  readonly baseDelayMs?: number;
  /**
   * Cap of any retry delay, in ms (at most 12 hours, SQS's visibility ceiling). With
   * `maxAttempts` and the timeout it bounds the retry horizon, `maxAttempts × (maxDelayMs +
   * timeout)`, which must stay within 7 days (half of SQS's 14-day message retention).
   * @default 300000
   */
  readonly maxDelayMs?: number;
}

/**
 * What a handler receives besides its payload: the task, its lease, and the durable parts
 * (checkpoints, steps, continuation; docs/durable-tasks.md).
 */
export interface TaskContext extends DurableContext {
  /** The task's id: the caller's idempotency key, or a generated ULID. */
  readonly taskId: string;
  /** This attempt's number, starting at 1. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /**
   * Aborted when the task's timeout elapses, its lease is lost, or it was cancelled (the
   * reason is then a TaskCancelledError); stop work when it fires.
   */
  readonly signal: AbortSignal;
  /** Logger with the task's id, type and attempt attached. */
  readonly logger: TaskLogger;
  /**
   * Extends the lease and the message's visibility for another timeout period. Long tasks
   * call it periodically. Rejects with LeaseLostError (and aborts `signal`) if the lease
   * was lost.
   */
  heartbeat(): Promise<void>;
  /**
   * Reports progress: `details` (JSON, at most 4 KB) replace the record's `progress`. Call it
   * as often as you like: the latest details ride on the next heartbeat write, at most one
   * write per heartbeat interval (docs/progress-and-cancel.md). Never adds to the history.
   *
   * @throws ValidationError when the details are not JSON or larger than 4 KB.
   */
  progress(details: unknown): void;
  /**
   * The task's parents (`dependsOn`), in the order given, each read when called: id, type,
   * status and result. Empty for a task without parents. See docs/dependencies.md.
   */
  parents(): Promise<readonly ParentResult[]>;
}

/** One parent of a task, as {@link TaskContext.parents} returns it. */
export interface ParentResult {
  readonly id: string;
  readonly type: string;
  /** SUCCEEDED, or DEAD or CANCELLED for a task with `onParentDead: 'run'`. */
  readonly status: TaskStatus;
  /** The parent's result (undefined unless it SUCCEEDED with one). */
  readonly result: unknown;
}

/** A task handler: receives the validated payload, returns a JSON-serializable result. */
export type TaskHandler<Payload, Result> = (
  payload: Payload,
  context: TaskContext,
) => Promise<Result> | Result;

/** Options of {@link defineTask}. */
export interface TaskDefinitionOptions<Schema extends StandardSchemaV1, Result> {
  /** Any Standard Schema (zod, valibot, arktype, …); validated at enqueue and in the worker. */
  readonly schema: Schema;
  readonly handler: TaskHandler<StandardSchemaV1.InferOutput<Schema>, Result>;
  readonly retry?: RetryPolicy;
  /** Handler timeout in milliseconds; the signal aborts when it elapses. @default 30000 */
  readonly timeout?: number;
  /**
   * What a DEAD task of this type does to its ordering key: `'release'` lets the key's later
   * tasks proceed; `'park'` holds them (without spending their attempts) until the dead task
   * is redriven with `client.redrive({ orderingKey })` or the key is released with
   * `client.releaseKey(orderingKey)`. Tasks without an ordering key are unaffected. See
   * docs/parked-keys.md. @default 'release'
   */
  readonly onDead?: OnDead;
  /**
   * At most `limit` starts of this type in any `intervalMs`, across every worker; with
   * `perKey`, per ordering key. A task over the limit waits (in the worker for up to a few
   * seconds, else back in the queue) without using an attempt (docs/rate-limits.md).
   * @default no limit
   */
  readonly rateLimit?: RateLimit;
  /**
   * The lane the type's tasks run in: one of the executor's `lanes`, each its own queue with
   * its own concurrency (docs/lanes.md). Ordering keys hold within a lane only. A lane the
   * client does not know fails the enqueue with an UnknownLaneError, before anything is
   * written. @default 'default'
   */
  readonly lane?: string;
  /**
   * How many times a task may end a run with `ctx.continue()` (docs/durable-tasks.md); past
   * it, the task is DEAD. Each continuation is one more receive of the task's message,
   * which it keeps to hold its ordering key, so `maxAttempts + maxContinuations` plus a
   * headroom of 5 must stay below the queue's `maxReceiveCount` (checked here against
   * SQS's limit of 1000, and by `createWorker` against its `maxReceiveCount`). 0 to 1000.
   * @default 10
   */
  readonly maxContinuations?: number;
}

/** A registered task type: its name, schema, handler and resolved policies. */
export interface TaskDefinition<
  Schema extends StandardSchemaV1 = StandardSchemaV1,
  Result = unknown,
> {
  readonly type: string;
  readonly schema: Schema;
  // Method syntax on purpose: it lets a definition of a specific payload type be used where
  // any definition is expected (a worker's task list), which a function property forbids.
  handler(
    payload: StandardSchemaV1.InferOutput<Schema>,
    context: TaskContext,
  ): Promise<Result> | Result;
  readonly retry: Required<RetryPolicy>;
  readonly timeoutMs: number;
  /** What a DEAD task of this type does to its ordering key; absent means `'release'`. */
  readonly onDead?: OnDead;
  /** The type's rate limit; undefined when it has none. */
  readonly rateLimit?: ResolvedRateLimit | undefined;
  /** The type's lane; absent means the default lane. */
  readonly lane?: string | undefined;
  /** How many times a task may continue (`ctx.continue()`). */
  readonly maxContinuations: number;
}

/** The payload type a definition accepts at enqueue. */
export type PayloadOf<D> =
  D extends TaskDefinition<infer S> ? StandardSchemaV1.InferInput<S> : never;

const TYPE_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const MAX_TIMEOUT_MS = Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS * 1000;

function checkInteger(
  issues: ValidationIssue[],
  path: string,
  value: number,
  min: number,
  max: number,
): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    issues.push({
      path,
      message: `expected an integer from ${min} to ${max}, received ${String(value)}`,
    });
  }
}

/**
 * Declares a task type. The definition is shared by producers (to validate and type the
 * payload at enqueue) and workers (to validate again and run the handler).
 *
 * @throws ValidationError listing every invalid option.
 */
export function defineTask<Schema extends StandardSchemaV1, Result = unknown>(
  type: string,
  options: TaskDefinitionOptions<Schema, Result>,
): TaskDefinition<Schema, Result> {
  const retry: Required<RetryPolicy> = {
    maxAttempts: options.retry?.maxAttempts ?? Defaults.MAX_ATTEMPTS,
    baseDelayMs: options.retry?.baseDelayMs ?? Defaults.RETRY_BASE_DELAY_MS,
    maxDelayMs: options.retry?.maxDelayMs ?? Defaults.RETRY_MAX_DELAY_MS,
  };
  const timeoutMs = options.timeout ?? Defaults.TASK_TIMEOUT_MS;
  const issues: ValidationIssue[] = [];
  if (typeof type !== 'string' || !TYPE_PATTERN.test(type)) {
    issues.push({
      path: 'type',
      message: `expected 1-128 characters of A-Z a-z 0-9 . _ : -, received ${JSON.stringify(type)}`,
    });
  }
  if (typeof options.schema?.['~standard']?.validate !== 'function') {
    issues.push({
      path: 'schema',
      message: 'expected a Standard Schema (for example a zod schema)',
    });
  }
  if (typeof options.handler !== 'function') {
    issues.push({
      path: 'handler',
      message: `expected a function, received ${typeof options.handler}`,
    });
  }
  const numericIssues = issues.length;
  checkInteger(issues, 'retry.maxAttempts', retry.maxAttempts, 1, Defaults.MAX_ATTEMPTS_LIMIT);
  checkInteger(issues, 'retry.baseDelayMs', retry.baseDelayMs, 0, MAX_TIMEOUT_MS);
  checkInteger(issues, 'retry.maxDelayMs', retry.maxDelayMs, 0, MAX_TIMEOUT_MS);
  checkInteger(issues, 'timeout', timeoutMs, 1, MAX_TIMEOUT_MS);
  if (issues.length === numericIssues) {
    // Only meaningful once each figure is in range; SQS's longest retention is the ceiling.
    const horizon = retryHorizonIssue({
      maxAttempts: retry.maxAttempts,
      maxDelayMs: retry.maxDelayMs,
      timeoutMs,
    });
    if (horizon !== undefined) issues.push({ path: 'retry', message: horizon });
  }
  const onDead = options.onDead ?? OnDead.RELEASE;
  if (onDead !== OnDead.RELEASE && onDead !== OnDead.PARK) {
    issues.push({
      path: 'onDead',
      message: `expected 'release' or 'park', received ${JSON.stringify(onDead)}`,
    });
  }
  const maxContinuations = options.maxContinuations ?? Defaults.MAX_CONTINUATIONS;
  checkInteger(issues, 'maxContinuations', maxContinuations, 0, Defaults.MAX_CONTINUATIONS_LIMIT);
  const receiveIssue = receiveLimitIssue(
    retry.maxAttempts,
    maxContinuations,
    Defaults.MAX_CONTINUATIONS_LIMIT,
  );
  if (receiveIssue !== undefined) issues.push({ path: 'maxContinuations', message: receiveIssue });
  const rateLimit = resolveRateLimit(issues, options.rateLimit);
  const laneProblem = options.lane === undefined ? undefined : laneNameProblem(options.lane);
  if (laneProblem !== undefined) issues.push({ path: 'lane', message: laneProblem });
  if (issues.length > 0) throw new ValidationError(`definition of task type '${type}'`, issues);
  return {
    type,
    schema: options.schema,
    handler: options.handler,
    retry,
    timeoutMs,
    onDead,
    maxContinuations,
    ...(rateLimit === undefined ? {} : { rateLimit }),
    // The default lane is stored as no lane at all, whichever way it was named.
    ...(options.lane === undefined || options.lane === DEFAULT_LANE ? {} : { lane: options.lane }),
  };
}

/**
 * What is wrong with a type's receives against the queue's `maxReceiveCount`, if anything: a
 * continuing task keeps its message (docs/adr/0047-durable-tasks.md), which is received once
 * per attempt and once per continuation, and SQS moves it to the dead-letter queue at
 * `maxReceiveCount`; a headroom is kept for duplicates and outages.
 */
export function receiveLimitIssue(
  maxAttempts: number,
  maxContinuations: number,
  maxReceiveCount: number,
): string | undefined {
  const receives = maxAttempts + maxContinuations + Defaults.RECEIVE_HEADROOM;
  if (!Number.isInteger(maxContinuations) || receives < maxReceiveCount) return undefined;
  return `expected maxAttempts (${maxAttempts}) + maxContinuations (${maxContinuations}) + ${Defaults.RECEIVE_HEADROOM} receives of headroom to stay below the queue's maxReceiveCount (${maxReceiveCount}), received ${receives}`;
}

function issuePath(issue: StandardSchemaV1.Issue): string {
  return (issue.path ?? [])
    .map((segment) => String(typeof segment === 'object' ? segment.key : segment))
    .join('.');
}

/**
 * Validates a payload against a task's schema.
 *
 * @returns the schema's output (after any transforms).
 * @throws ValidationError listing every issue the schema reported.
 */
export async function validatePayload<S extends StandardSchemaV1>(
  definition: TaskDefinition<S, unknown>,
  payload: unknown,
): Promise<StandardSchemaV1.InferOutput<S>> {
  const result = await definition.schema['~standard'].validate(payload);
  if (result.issues !== undefined) {
    throw new ValidationError(
      `payload for task type '${definition.type}'`,
      result.issues.map((issue) => ({ path: issuePath(issue), message: issue.message })),
    );
  }
  return result.value as StandardSchemaV1.InferOutput<S>;
}

/**
 * How the worker records a stored payload its schema refused: the error's name, the paths
 * of the issues and the payload's hash. Never the schema's messages, which may quote the
 * value received, since the reason goes into the task's history and the log.
 */
export function describeInvalidPayload(error: ValidationError, payloadHash: string): string {
  const paths = [
    ...new Set(error.issues.map((i) => (i.path === '' ? 'payload' : `payload.${i.path}`))),
  ];
  return `invalid payload (${error.name}) at ${paths.join(', ')}; payload hash ${payloadHash.slice(0, 16)}`;
}
