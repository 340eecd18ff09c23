/**
 * What a handler of a durable task uses: checkpoints, memoized steps and continuation
 * (docs/durable-tasks.md, docs/adr/0047-durable-tasks.md). Types and the continuation's
 * brand only; the worker implements them.
 */
import type { StepInfo } from '../core/record.js';

/**
 * Marks a continuation through a registered symbol that every copy of this module shares: a
 * bundled handler may carry its own copy.
 */
const CONTINUATION: unique symbol = Symbol.for('tasklane.continuation') as never;

/** What `ctx.continue()` returns; a handler returns it to end its slice and run again. */
export interface Continuation {
  readonly [CONTINUATION]: true;
}

/** A new continuation. */
export function continuation(): Continuation {
  return Object.freeze({ [CONTINUATION]: true as const });
}

/** True for what `ctx.continue()` returned, of this copy of the module or another. */
export function isContinuation(value: unknown): value is Continuation {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [CONTINUATION]?: unknown })[CONTINUATION] === true
  );
}

/** The durable part of a handler's context. */
export interface DurableContext {
  /**
   * The last checkpoint saved: by an earlier run of the task (a retry, a takeover after a
   * crash, a continuation, a redrive), or by this run; `undefined` before any.
   */
  readonly checkpoint: unknown;
  /**
   * Stores `value` (JSON) as the task's checkpoint and resolves once it is durable: one
   * write of the task's record, fenced by the lease, which also carries pending progress
   * (it does not extend the lease). Up to 4 KB inline; larger goes to the payload bucket.
   *
   * @throws LeaseLostError when this run's lease was lost (its save is refused).
   * @throws ValidationError when the value is not JSON, or is larger than 4 KB without a
   *   payload bucket (the message quotes its size).
   * @throws TaskCancelledError when the task was cancelled: the run should end.
   */
  saveCheckpoint(value: unknown): Promise<void>;
  /**
   * Runs `fn` once and stores its JSON result; every later run of the task returns the
   * stored result without calling `fn`. A step that throws is not stored. Names are unique
   * within a run, and every run must call its steps in the same order with the same names,
   * else the task is DEAD with `NON_DETERMINISTIC`. Resolves to the result as stored (its
   * JSON read back), on the first run as on a replay.
   *
   * @throws TaskCancelledError when the task was cancelled: the run should end.
   */
  step<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
  /** The steps stored so far, in call order: name, time and size. */
  steps(): Promise<readonly StepInfo[]>;
  /**
   * Ends this run so that the task runs again, from its checkpoint and steps, on any
   * worker, without spending an attempt and keeping its ordering key's place. Return it:
   * `return ctx.continue()`. At most the type's `maxContinuations` times.
   */
  continue(): Continuation;
  /**
   * Milliseconds left before this run's timeout (on Lambda, the invocation's remaining
   * time when that is shorter): when to save a checkpoint and continue.
   */
  remainingMs(): number;
}
