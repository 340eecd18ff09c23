import { describe, expect, it } from 'vitest';
import { TaskStatus } from '../../../src/core/constants.js';
import {
  ClaimCheckMismatchError,
  ConfigurationError,
  DebounceContendedError,
  DependencyError,
  ErrorCode,
  IdempotencyConflictError,
  LeaseLostError,
  NonDeterministicError,
  PayloadTooLargeError,
  PermanentError,
  ResultTooLargeError,
  ScheduleFailedError,
  ScheduleNotFoundError,
  TaskCancelledError,
  TasklaneError,
  TaskNotFoundError,
  TaskTimeoutError,
  TransitionRejectedError,
  UnknownTaskTypeError,
  ValidationError,
  WaitTimeoutError,
  WatchGapError,
} from '../../../src/core/errors.js';
import { taskRecord } from '../../helpers/task-record.js';

const running = taskRecord({ id: 'task-9', status: TaskStatus.RUNNING, attempt: 2 });

/** One instance of every error class, with the code it must carry. */
const cases: ReadonlyArray<readonly [string, ErrorCode, () => TasklaneError]> = [
  ['TasklaneError', 'CONFIGURATION', () => new TasklaneError('CONFIGURATION', 'base')],
  ['ValidationError', 'VALIDATION', () => new ValidationError('thing', [])],
  ['PayloadTooLargeError', 'PAYLOAD_TOO_LARGE', () => new PayloadTooLargeError('t', 2, 1)],
  ['IdempotencyConflictError', 'IDEMPOTENCY_CONFLICT', () => new IdempotencyConflictError(running)],
  ['TaskNotFoundError', 'TASK_NOT_FOUND', () => new TaskNotFoundError('x')],
  [
    'TransitionRejectedError',
    'TRANSITION_REJECTED',
    () => new TransitionRejectedError('cancel', 'x', running),
  ],
  ['LeaseLostError', 'LEASE_LOST', () => new LeaseLostError('complete', 'x', running)],
  ['UnknownTaskTypeError', 'UNKNOWN_TASK_TYPE', () => new UnknownTaskTypeError('t', ['a'])],
  ['PermanentError', 'PERMANENT', () => new PermanentError('no')],
  ['TaskTimeoutError', 'TASK_TIMEOUT', () => new TaskTimeoutError('x', 10)],
  ['TaskCancelledError', 'TASK_CANCELLED', () => new TaskCancelledError('x')],
  ['WaitTimeoutError', 'WAIT_TIMEOUT', () => new WaitTimeoutError('x', 10, undefined)],
  ['ConfigurationError', 'CONFIGURATION', () => new ConfigurationError('bad')],
  ['ScheduleNotFoundError', 'SCHEDULE_NOT_FOUND', () => new ScheduleNotFoundError('nightly')],
  [
    'ScheduleFailedError',
    'SCHEDULE_FAILED',
    () => new ScheduleFailedError('x', 'task.x', { cause: new Error('throttled') }),
  ],
  ['ResultTooLargeError', 'RESULT_TOO_LARGE', () => new ResultTooLargeError('x', 40_000, 32_768)],
  [
    'ClaimCheckMismatchError',
    'CLAIM_CHECK_MISMATCH',
    () => new ClaimCheckMismatchError('s3://b/payloads/x/h', 'sha256', 'does not match'),
  ],
  [
    'DebounceContendedError',
    'DEBOUNCE_CONTENDED',
    () => new DebounceContendedError('save', 'doc-1', 16),
  ],
  [
    'DependencyError',
    'DEPENDENCY',
    () => new DependencyError('child', 'unknown-parent', ['p'], "depends on 'p', unknown"),
  ],
  ['NonDeterministicError', 'NON_DETERMINISTIC', () => new NonDeterministicError(2, 'a', 'b')],
  ['WatchGapError', 'WATCH_GAP', () => new WatchGapError('arn:stream', 'shard-1')],
];

describe('error hierarchy', () => {
  it.each(cases)('%s has code %s, its class name, and is a TasklaneError', (name, code, make) => {
    const error = make();

    expect(error.code).toBe(code);
    expect(error.name).toBe(name);
    expect(error.constructor.name).toBe(name);
    expect(error).toBeInstanceOf(TasklaneError);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).not.toBe('');
    expect(error.stack).toContain(name);
    expect(String(error)).toMatch(new RegExp(`^${name}: `));
  });

  it('covers every error code', () => {
    const used = new Set(cases.map(([, code]) => code));

    expect([...used].sort()).toEqual(Object.values(ErrorCode).sort());
  });

  it('keeps the error codes stable', () => {
    expect(ErrorCode).toEqual({
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
    });
  });

  it('makes a LeaseLostError a TransitionRejectedError with its own code', () => {
    const error = new LeaseLostError('complete', 'task-9', running);

    expect(error).toBeInstanceOf(TransitionRejectedError);
    expect(error.code).toBe('LEASE_LOST');
  });

  describe('cause', () => {
    const cause = new Error('root cause');

    it.each([
      ['TasklaneError', () => new TasklaneError('CONFIGURATION', 'm', { cause })],
      ['ValidationError', () => new ValidationError('thing', [], { cause })],
      ['PermanentError', () => new PermanentError('m', { cause })],
    ])('%s passes cause through', (_name, make) => {
      expect(make().cause).toBe(cause);
    });

    it('is absent when not given', () => {
      expect(new PermanentError('m')).not.toHaveProperty('cause');
    });
  });

  describe('ValidationError', () => {
    it('lists every issue in its message, one per line, root as (root)', () => {
      const issues = [
        { path: '', message: 'expected an object' },
        { path: 'retry.maxAttempts', message: 'expected an integer from 1 to 1000, received 0' },
        { path: 'payload.items.1', message: 'required' },
      ];

      const error = new ValidationError('enqueue of task type', issues);

      expect(error.issues).toEqual(issues);
      expect(error.message).toBe(
        [
          'Invalid enqueue of task type:',
          '  - (root): expected an object',
          '  - retry.maxAttempts: expected an integer from 1 to 1000, received 0',
          '  - payload.items.1: required',
        ].join('\n'),
      );
    });
  });

  describe('context fields', () => {
    it('PayloadTooLargeError carries the size and the limit', () => {
      const error = new PayloadTooLargeError('report', 300_000, 262_144);

      expect(error).toMatchObject({ sizeBytes: 300_000, limitBytes: 262_144 });
      expect(error.message).toContain("'report'");
      expect(error.message).toContain('300000');
      expect(error.message).toContain('262144');
    });

    it('IdempotencyConflictError carries the existing record', () => {
      const error = new IdempotencyConflictError(running);

      expect(error.existing).toBe(running);
      expect(error.message).toContain("'task-9'");
      expect(error.message).toContain('RUNNING');
    });

    it('TaskNotFoundError carries the id', () => {
      expect(new TaskNotFoundError('nope').taskId).toBe('nope');
    });

    it('TransitionRejectedError carries the transition and the current record', () => {
      const error = new TransitionRejectedError('cancel', 'task-9', running);

      expect(error.transition).toBe('cancel');
      expect(error.current).toBe(running);
      expect(error.message).toBe("Cannot cancel task 'task-9': the task is RUNNING at attempt 2.");
    });

    it('TransitionRejectedError says when the task does not exist', () => {
      const error = new TransitionRejectedError('claim', 'ghost', undefined);

      expect(error.current).toBeUndefined();
      expect(error.message).toBe("Cannot claim task 'ghost': the task does not exist.");
    });

    it('LeaseLostError carries the current record', () => {
      expect(new LeaseLostError('complete', 'task-9', running).current).toBe(running);
    });

    it('UnknownTaskTypeError carries the type and lists the known ones', () => {
      const error = new UnknownTaskTypeError('ghost', ['a', 'b']);

      expect(error.taskType).toBe('ghost');
      expect(error.message).toContain('a, b');
      expect(new UnknownTaskTypeError('ghost', []).message).toContain('(none)');
    });

    it('TaskTimeoutError carries the timeout', () => {
      expect(new TaskTimeoutError('task-9', 1_500).timeoutMs).toBe(1_500);
    });

    it('WaitTimeoutError carries the last record seen', () => {
      const error = new WaitTimeoutError('task-9', 100, running);

      expect(error.last).toBe(running);
      expect(error.message).toContain('RUNNING');
      expect(new WaitTimeoutError('x', 100, undefined).message).toContain('missing');
    });
  });
});
