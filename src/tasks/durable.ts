/**
 * What a handler of a durable task uses: checkpoints, memoized steps and continuation
 * (docs/durable-tasks.md, docs/adr/0047-durable-tasks.md). Types and the continuation's
 * brand only; the worker implements them.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
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

/** Options of `ctx.waitForSignal`. */
export interface WaitForSignalOptions<Schema extends StandardSchemaV1 = StandardSchemaV1> {
  /**
   * How long to wait, in milliseconds, from the first call: then the wait returns
   * `{ received: false }`. At most until one retention period after the task's creation.
   * @default no timeout (the wait lasts until the signal comes)
   */
  readonly timeoutMs?: number;
  /**
   * Checks the signal's data (any Standard Schema); `data` is its output. A signal whose
   * data fails it is consumed all the same, and the wait throws a ValidationError.
   */
  readonly schema?: Schema;
}

/** What `ctx.waitForSignal` resolves to. */
export type SignalOutcome<Data> =
  | { readonly received: true; readonly data: Data }
  | { readonly received: false };

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
  /**
   * Sleeps for `duration` milliseconds, or until a date, without holding a worker: the run
   * ends, the task is SUSPENDED, and it runs again when the time comes, replaying its steps;
   * then the sleep returns. Memoized like a step under `name` (unique within a run): a later
   * run never sleeps twice for the same name, and its end is fixed by the first call. Spends
   * no attempt. At most until one retention period after the task's creation.
   *
   * @throws ValidationError (and the task ends DEAD) for a duration that is not a finite
   *   number of milliseconds from 0, or a date past that bound.
   */
  sleep(name: string, duration: number | Date): Promise<void>;
  /**
   * Waits for the signal `name` (`client.signal(taskId, name, data)`), without holding a
   * worker while it waits (the task is SUSPENDED): `{ received: true, data }`, or
   * `{ received: false }` once `timeoutMs` has passed. A signal sent before the wait is kept
   * for it; signals of one name are consumed in the order they were sent, one per wait.
   * Memoized like a step under `name`'s position: a later run gets the same outcome.
   *
   * @throws ValidationError when the consumed signal's data fails `schema`.
   */
  waitForSignal<Schema extends StandardSchemaV1>(
    name: string,
    options: WaitForSignalOptions<Schema> & { readonly schema: Schema },
  ): Promise<SignalOutcome<StandardSchemaV1.InferOutput<Schema>>>;
  waitForSignal(name: string, options?: WaitForSignalOptions): Promise<SignalOutcome<unknown>>;
  /**
   * A token that lets a sender deliver the signal `name` to this task without knowing its id
   * (`client.signalWithToken(token, data)`, for a webhook that holds only `grantSignal`): an
   * HMAC under the executor's integrity key over the task and the name, so a token cannot be
   * altered to reach another task or signal.
   *
   * @throws ConfigurationError when the worker has no integrity key (`integrity` on the
   *   construct, or `TASKLANE_INTEGRITY_KEY_ID`).
   */
  signalToken(name: string): Promise<string>;
}
