/**
 * The root of the hierarchy: the stable codes, {@link TasklaneError}, and how an error of
 * any copy of the classes is recognised.
 */

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
