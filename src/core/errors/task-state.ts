/**
 * Errors that report the state of the task table: an id taken or missing, a transition or a
 * fenced write refused (with the record DynamoDB held), an enqueue whose key or parents do not
 * allow it, a wait that gave up, and a watch that fell behind the stream.
 */
import type { TaskRecord } from '../record.js';
import { ErrorCode, TasklaneError } from './base.js';

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
