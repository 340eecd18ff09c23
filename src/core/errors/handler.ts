/**
 * Errors of a handler's run: the control-flow errors a handler throws or is aborted with, and
 * a durable task's replay that does not match its stored steps.
 */
import { ErrorCode, isTasklaneError, TasklaneError } from './base.js';

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

/** True for a {@link PermanentError}, of this copy of the classes or another. */
export function isPermanentError(value: unknown): boolean {
  return (
    value instanceof PermanentError ||
    (isTasklaneError(value) && value.code === ErrorCode.PERMANENT)
  );
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
