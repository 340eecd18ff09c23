/**
 * Errors of the features beyond run-once (docs/large-payloads.md, docs/debounce.md,
 * docs/dependencies.md), beside the core hierarchy in errors.ts: each is a TasklaneError with
 * a stable code.
 */
import { ErrorCode, TasklaneError } from './errors.js';

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
