/**
 * The one error hierarchy: every error Tasklane throws is a {@link TasklaneError} with a stable
 * `code`, and carries its context as fields. Also here: what a record keeps of an error that a
 * handler or an AWS call threw.
 */
import { type TaskErrorInfo, type TaskRecord, truncate } from './record.js';

/** Stable, machine-readable error codes. */
export const ErrorCode = {
  VALIDATION: 'VALIDATION',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  IDEMPOTENCY_CONFLICT: 'IDEMPOTENCY_CONFLICT',
  TASK_NOT_FOUND: 'TASK_NOT_FOUND',
  TRANSITION_REJECTED: 'TRANSITION_REJECTED',
  LEASE_LOST: 'LEASE_LOST',
  UNKNOWN_TASK_TYPE: 'UNKNOWN_TASK_TYPE',
  PERMANENT: 'PERMANENT',
  TASK_TIMEOUT: 'TASK_TIMEOUT',
  TASK_CANCELLED: 'TASK_CANCELLED',
  WAIT_TIMEOUT: 'WAIT_TIMEOUT',
  CONFIGURATION: 'CONFIGURATION',
  SCHEDULE_NOT_FOUND: 'SCHEDULE_NOT_FOUND',
  SCHEDULE_FAILED: 'SCHEDULE_FAILED',
  RESULT_TOO_LARGE: 'RESULT_TOO_LARGE',
  CLAIM_CHECK_MISMATCH: 'CLAIM_CHECK_MISMATCH',
  DEBOUNCE_CONTENDED: 'DEBOUNCE_CONTENDED',
  DEPENDENCY: 'DEPENDENCY',
  NON_DETERMINISTIC: 'NON_DETERMINISTIC',
  WATCH_GAP: 'WATCH_GAP',
} as const;

/** One of the {@link ErrorCode} values. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Marks every Tasklane error, through a registered symbol that every copy of this module
 * shares: a bundled handler may carry its own copy of the classes, whose errors fail
 * `instanceof` against the worker's.
 */
const TASKLANE_ERROR: unique symbol = Symbol.for('tasklane.error') as never;

/** Base of every error Tasklane throws. `code` is stable across releases; match on it. */
export class TasklaneError extends Error {
  /** Stable error code. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
Object.defineProperty(TasklaneError.prototype, TASKLANE_ERROR, { value: true });

/**
 * True for an error of any copy of the Tasklane classes (see {@link TasklaneError}), so a
 * handler bundled with its own copy is still recognised.
 */
export function isTasklaneError(value: unknown): value is TasklaneError {
  return (
    value instanceof TasklaneError ||
    (typeof value === 'object' &&
      value !== null &&
      (value as { [TASKLANE_ERROR]?: unknown })[TASKLANE_ERROR] === true &&
      typeof (value as { code?: unknown }).code === 'string')
  );
}

/** True for a {@link PermanentError}, of this copy of the classes or another. */
export function isPermanentError(value: unknown): boolean {
  return (
    value instanceof PermanentError ||
    (isTasklaneError(value) && value.code === ErrorCode.PERMANENT)
  );
}

/** One problem found while validating input. `path` is dotted, empty for the root. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * Input was rejected. `issues` lists every problem found, not only the first, and the
 * message quotes them all.
 */
export class ValidationError extends TasklaneError {
  /** Every problem found. */
  readonly issues: readonly ValidationIssue[];

  constructor(subject: string, issues: readonly ValidationIssue[], options?: ErrorOptions) {
    const lines = issues.map((i) => `  - ${i.path === '' ? '(root)' : i.path}: ${i.message}`);
    super(ErrorCode.VALIDATION, `Invalid ${subject}:\n${lines.join('\n')}`, options);
    this.issues = issues;
  }
}

/** A payload (or another serialized value) is larger than the configured limit. */
export class PayloadTooLargeError extends TasklaneError {
  /** Size of the serialized value, in bytes. */
  readonly sizeBytes: number;
  /** The limit it exceeded, in bytes. */
  readonly limitBytes: number;

  constructor(taskType: string, sizeBytes: number, limitBytes: number) {
    super(
      ErrorCode.PAYLOAD_TOO_LARGE,
      `Payload of task type '${taskType}' is ${sizeBytes} bytes as JSON; the limit is ${limitBytes} bytes. ` +
        'Configure a payload bucket (payloadBucket) to store large payloads in S3, or pass a reference.',
    );
    this.sizeBytes = sizeBytes;
    this.limitBytes = limitBytes;
  }
}

/** The task id already exists with a different type or payload. */
export class IdempotencyConflictError extends TasklaneError {
  /** The task that already holds this id. */
  readonly existing: TaskRecord;

  constructor(existing: TaskRecord) {
    super(
      ErrorCode.IDEMPOTENCY_CONFLICT,
      `Task id '${existing.id}' already exists (type '${existing.type}', status ${existing.status}) ` +
        'with a different type or payload. Use a new id, or send the same payload to get the existing task.',
    );
    this.existing = existing;
  }
}

/** No task has this id. */
export class TaskNotFoundError extends TasklaneError {
  /** The id looked up. */
  readonly taskId: string;

  constructor(taskId: string) {
    super(ErrorCode.TASK_NOT_FOUND, `No task has id '${taskId}'.`);
    this.taskId = taskId;
  }
}

/**
 * A conditional transition was refused because the task was not in an allowed state.
 * `current` is the record as DynamoDB saw it when it refused (ALL_OLD), or undefined when
 * the task does not exist.
 */
export class TransitionRejectedError extends TasklaneError {
  /** The transition that was attempted, e.g. `claim`. */
  readonly transition: string;
  /** The record that made the condition fail; undefined if there is none. */
  readonly current: TaskRecord | undefined;

  constructor(
    transition: string,
    taskId: string,
    current: TaskRecord | undefined,
    code: ErrorCode = ErrorCode.TRANSITION_REJECTED,
  ) {
    const state =
      current === undefined
        ? 'the task does not exist'
        : `the task is ${current.status} at attempt ${current.attempt}`;
    super(code, `Cannot ${transition} task '${taskId}': ${state}.`);
    this.transition = transition;
    this.current = current;
  }
}

/**
 * A worker's fenced write was refused: its lease token or attempt is no longer current,
 * because the lease expired and another attempt took over, or the task was finished.
 */
export class LeaseLostError extends TransitionRejectedError {
  constructor(transition: string, taskId: string, current: TaskRecord | undefined) {
    super(transition, taskId, current, ErrorCode.LEASE_LOST);
  }
}

/** A message or record names a task type that no definition was registered for. */
export class UnknownTaskTypeError extends TasklaneError {
  /** The unrecognized type. */
  readonly taskType: string;

  constructor(taskType: string, known: readonly string[]) {
    super(
      ErrorCode.UNKNOWN_TASK_TYPE,
      `Unknown task type '${taskType}'; this worker handles: ${known.length === 0 ? '(none)' : known.join(', ')}.`,
    );
    this.taskType = taskType;
  }
}

/**
 * Thrown by a handler to fail the task without further retries: the task goes DEAD with
 * this error's message as the reason.
 */
export class PermanentError extends TasklaneError {
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCode.PERMANENT, message, options);
  }
}

/** A handler did not settle within its task's timeout. */
export class TaskTimeoutError extends TasklaneError {
  /** The timeout that elapsed, in milliseconds. */
  readonly timeoutMs: number;

  constructor(taskId: string, timeoutMs: number) {
    super(ErrorCode.TASK_TIMEOUT, `Task '${taskId}' did not finish within ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The reason `ctx.signal` aborts with when the task was cancelled while it ran. The handler
 * should stop; whatever it does next, the task ends CANCELLED (docs/progress-and-cancel.md).
 */
export class TaskCancelledError extends TasklaneError {
  constructor(taskId: string, options?: ErrorOptions) {
    super(ErrorCode.TASK_CANCELLED, `Task '${taskId}' was cancelled while it ran.`, options);
  }
}

/** `TaskClient.wait` gave up before the task reached a terminal state. */
export class WaitTimeoutError extends TasklaneError {
  /** The last record seen. */
  readonly last: TaskRecord | undefined;

  constructor(taskId: string, timeoutMs: number, last: TaskRecord | undefined) {
    super(
      ErrorCode.WAIT_TIMEOUT,
      `Task '${taskId}' was still ${last?.status ?? 'missing'} after waiting ${timeoutMs} ms.`,
    );
    this.last = last;
  }
}

/**
 * One permanent misconfiguration found by an AWS call or by `TaskClient.check()`: a resource
 * that does not exist, access denied, bad credentials, an endpoint that does not answer, or
 * no region.
 */
export interface ConfigurationProblem {
  /** What was wrong, e.g. `queue https://…/jobs.fifo does not exist`. */
  readonly message: string;
  /** The resource the call addressed: a queue URL, table name or schedule group. */
  readonly resource?: string | undefined;
  /** Where the call went: the endpoint URL, or a description when it is AWS's default. */
  readonly endpoint?: string | undefined;
  /** The AWS SDK's error. */
  readonly cause?: unknown;
}

/** Options of {@link ConfigurationError}. */
export interface ConfigurationErrorOptions extends ErrorOptions {
  /** The resource the failed call addressed (queue URL, table name, schedule group). */
  readonly resource?: string | undefined;
  /** The endpoint the failed call went to. */
  readonly endpoint?: string | undefined;
  /** Every problem, when several were found at once (`TaskClient.check()`). */
  readonly problems?: readonly ConfigurationProblem[];
}

/**
 * Tasklane is configured wrongly, and retrying will not help: a setting is missing, or AWS
 * says a resource does not exist, access is denied, the credentials are not valid, the
 * endpoint does not answer, or no region is set. `resource` and `endpoint` name what was
 * called and where; `cause` is the AWS SDK's error. Transient faults (throttling, 5xx) never
 * raise it.
 */
export class ConfigurationError extends TasklaneError {
  /** The resource the failed call addressed, when one did. */
  readonly resource: string | undefined;
  /** The endpoint the failed call went to, when one did. */
  readonly endpoint: string | undefined;
  /** Every problem found; one entry for a single failed call, none for a missing setting. */
  readonly problems: readonly ConfigurationProblem[];

  constructor(message: string, options: ConfigurationErrorOptions = {}) {
    const { resource, endpoint, problems, ...errorOptions } = options;
    super(ErrorCode.CONFIGURATION, message, errorOptions);
    this.resource = resource;
    this.endpoint = endpoint;
    this.problems = problems ?? [];
  }
}

/** No recurring schedule has this name in the executor's schedule group. */
export class ScheduleNotFoundError extends TasklaneError {
  /** The name looked up. */
  readonly scheduleName: string;

  constructor(scheduleName: string, options?: ErrorOptions) {
    super(ErrorCode.SCHEDULE_NOT_FOUND, `No schedule is named '${scheduleName}'.`, options);
    this.scheduleName = scheduleName;
  }
}

/**
 * The one-time schedule of a delayed task could not be created. The task record was
 * removed again, so nothing was enqueued: retrying with the same id is safe. `cause` is
 * the Scheduler error.
 */
export class ScheduleFailedError extends TasklaneError {
  readonly taskId: string;
  readonly scheduleName: string;

  constructor(taskId: string, scheduleName: string, options?: ErrorOptions) {
    const reason = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      ErrorCode.SCHEDULE_FAILED,
      `Task '${taskId}' was not enqueued: its schedule '${scheduleName}' could not be created${reason}. ` +
        'It will not run (its record is rolled back); enqueue again with the same id to retry.',
      options,
    );
    this.taskId = taskId;
    this.scheduleName = scheduleName;
  }
}

/**
 * A handler's result is larger than the worker stores: above `maxResultBytes` (32 KB without
 * a payload bucket). The task goes DEAD with this error, unretried: the work is done, and
 * running it again would repeat its effects and make the same result (docs/large-payloads.md).
 */
export class ResultTooLargeError extends TasklaneError {
  readonly sizeBytes: number;
  readonly limitBytes: number;

  constructor(taskId: string, sizeBytes: number, limitBytes: number) {
    super(
      ErrorCode.RESULT_TOO_LARGE,
      `Result of task '${taskId}' is ${sizeBytes} bytes as JSON; the limit is ${limitBytes} bytes. ` +
        'Configure a payload bucket (payloadBucket) to store large results in S3, or return less.',
    );
    this.sizeBytes = sizeBytes;
    this.limitBytes = limitBytes;
  }
}

// Errors of the features beyond run-once (docs/large-payloads.md, docs/debounce.md,
// docs/dependencies.md).

/**
 * A claim-checked payload or result in S3 is missing, or is not what the record's reference
 * says (size, SHA-256, payload hash or bucket), or the record holds an inline payload beside
 * it (`ambiguous`). A task whose payload fails is declared DEAD
 * unrun; `get()` throws it for a result.
 */
export class ClaimCheckMismatchError extends TasklaneError {
  /** `s3://bucket/key` of the object. */
  readonly location: string;
  readonly problem: 'missing' | 'size' | 'sha256' | 'payload-hash' | 'bucket' | 'ambiguous';

  constructor(location: string, problem: ClaimCheckMismatchError['problem'], detail: string) {
    super(
      ErrorCode.CLAIM_CHECK_MISMATCH,
      `${ErrorCode.CLAIM_CHECK_MISMATCH}: ${location} ${detail}.`,
    );
    this.location = location;
    this.problem = problem;
  }
}

/**
 * A debounced enqueue lost every one of its conditional writes' races to other enqueues of
 * the same key; nothing was absorbed or created by it. Retrying is safe.
 */
export class DebounceContendedError extends TasklaneError {
  readonly taskType: string;
  readonly key: string;

  constructor(taskType: string, key: string, steps: number) {
    super(
      ErrorCode.DEBOUNCE_CONTENDED,
      `Debounce key ${JSON.stringify(key)} of task type '${taskType}': ${steps} of its creates lost their race to other enqueues of the key; nothing was enqueued, retry.`,
    );
    this.taskType = taskType;
    this.key = key;
  }
}

/**
 * An enqueue's `dependsOn` cannot be honoured (docs/dependencies.md). Nothing was written.
 * - `unknown-parent`: no task has one of the ids (`parentIds` lists them);
 * - `cycle`: the task would wait for itself, directly or through its parents;
 * - `too-many-parents`: more than `Defaults.MAX_PARENTS` parents;
 * - `too-many-dependents`: a parent already has `Defaults.MAX_DEPENDENTS` dependents;
 * - `parent-dead`: a parent is already DEAD or CANCELLED and `onParentDead` is `'cancel'`;
 * - `delayed`: `dependsOn` with `runAt` or `delay`, which do not combine.
 */
export class DependencyError extends TasklaneError {
  readonly taskId: string;
  readonly problem:
    | 'unknown-parent'
    | 'cycle'
    | 'too-many-parents'
    | 'too-many-dependents'
    | 'parent-dead'
    | 'delayed';
  /** The parents the problem is about. */
  readonly parentIds: readonly string[];

  constructor(
    taskId: string,
    problem: DependencyError['problem'],
    parentIds: readonly string[],
    detail: string,
  ) {
    super(ErrorCode.DEPENDENCY, `${ErrorCode.DEPENDENCY}: task '${taskId}' ${detail}.`);
    this.taskId = taskId;
    this.problem = problem;
    this.parentIds = parentIds;
  }
}

/**
 * A durable task's run called its steps in another order, or by other names, than an
 * earlier run stored them: replaying it would return a stored result to the wrong call, so
 * the task is DEAD (docs/durable-tasks.md). Also thrown when one run calls a step name twice.
 */
export class NonDeterministicError extends TasklaneError {
  /** The step's position in the run, from 0. */
  readonly index: number;
  /** The name stored at that position (or, for a repeated name, the name repeated). */
  readonly expected: string;
  /** The name the run called. */
  readonly called: string;

  constructor(index: number, expected: string, called: string, detail?: string) {
    super(
      ErrorCode.NON_DETERMINISTIC,
      detail ??
        `step ${index} was stored as ${JSON.stringify(expected)}, but this run called ${JSON.stringify(called)}: steps must be called in the same order with the same names on every run`,
    );
    this.index = index;
    this.expected = expected;
    this.called = called;
  }
}

// What a record keeps of an error.

/** Longest error name kept on a record. */
const MAX_ERROR_NAME_CHARS = 100;
/** Longest error message kept on a record (and of a DEAD task's reason). */
export const MAX_ERROR_MESSAGE_CHARS = 1000;

/** An error's name and message, cut to what a record keeps. */
export function boundedError(error: TaskErrorInfo): TaskErrorInfo {
  return {
    name: truncate(error.name, MAX_ERROR_NAME_CHARS),
    message: truncate(error.message, MAX_ERROR_MESSAGE_CHARS),
  };
}

/** What a record keeps of anything thrown: an Error's name and message, else `NonError`. */
export function errorInfo(error: unknown): TaskErrorInfo {
  return error instanceof Error
    ? boundedError(error)
    : { name: 'NonError', message: truncate(String(error), MAX_ERROR_MESSAGE_CHARS) };
}

/** One line for a log: `Name: message` for an Error, else the value as text. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * A watch of the table's stream fell further behind than the stream keeps records (24
 * hours): records it had not read are gone, so it stops rather than go on as if nothing was
 * missing. Start a new watch; `since` within the last 24 hours reads what the stream still
 * holds (docs/adr/0049-watch-reads-the-table-stream.md).
 */
export class WatchGapError extends TasklaneError {
  /** The stream read. */
  readonly streamArn: string;
  /** The shard whose records were trimmed. */
  readonly shardId: string;

  constructor(streamArn: string, shardId: string) {
    super(
      ErrorCode.WATCH_GAP,
      `The table stream dropped records this watch had not read yet (shard ${shardId}): it was more than 24 hours behind. Start a new watch.`,
    );
    this.streamArn = streamArn;
    this.shardId = shardId;
  }
}
