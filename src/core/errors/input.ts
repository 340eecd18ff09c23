/**
 * Errors of input that cannot be accepted as it is: a payload or result that fails its
 * schema or its size limit, an unknown task type, and a claim-checked object that is not what
 * its reference says.
 */
import { ErrorCode, TasklaneError } from './base.js';

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
