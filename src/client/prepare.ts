import { monotonicFactory } from 'ulid';
import { OnDead, type OnParentDead } from '../core/constants.js';
import { DEBOUNCE_ID_PREFIX } from '../core/debounce.js';
import { PayloadTooLargeError, ValidationError, type ValidationIssue } from '../core/errors.js';
import { messageGroupOf, UNKEYED_GROUP_PREFIX } from '../core/message.js';
import { instantProblem } from '../scheduler/limits.js';
import { canonicalJson, payloadHash } from '../store/record.js';
import type { NewTask } from '../store/task-store.js';
import type { TaskDefinition } from '../tasks/task-definition.js';
import { checkDebounce, type DebounceOptions } from './debounce-options.js';
import { checkDependencies } from './dependencies.js';
import { checkOptionKeys, ENQUEUE_OPTION_KEYS } from './validate.js';

/** Options of one enqueue. */
export interface EnqueueOptions {
  /**
   * Idempotency key, used as the task id. Enqueueing the same id again returns the existing
   * task; with another payload it throws IdempotencyConflictError. 1-128 printable ASCII
   * characters, no spaces, and no `@`: ids with `@` are the recurring schedules' firings,
   * `<schedule>@<time>` (docs/security.md). @default a new ULID
   */
  readonly id?: string;
  /**
   * Tasks sharing an ordering key start strictly one after another, in enqueue order; a
   * failing task holds its key until it succeeds or dies. Same character rules as `id`.
   * @default none: the task runs in parallel with others
   */
  readonly orderingKey?: string;
  /**
   * Do not run before this time. Further out than the client's `scheduleThresholdMs`, the
   * task is stored SCHEDULED and an EventBridge Scheduler one-time schedule delivers it;
   * nearer, it is sent at once and the worker holds it back until due. A time in the past
   * enqueues immediately. About 1-minute precision through Scheduler; never early.
   * @default now
   */
  readonly runAt?: Date;
  /** Like `runAt`, as milliseconds from now. Give one of `runAt` and `delay`, not both. */
  readonly delay?: number;
  /**
   * Folds enqueues of this task type with the same key into one waiting task, which runs at
   * the end of its window (docs/debounce.md). Not with `id`, `runAt` or `delay`.
   * @default none: every enqueue is its own task
   */
  readonly debounce?: DebounceOptions;
  /**
   * Ids of tasks that must finish first (at most 99, each already enqueued): the task is
   * created WAITING and starts once every parent has SUCCEEDED. Not with `runAt`/`delay`.
   * See docs/dependencies.md. @default none
   */
  readonly dependsOn?: readonly string[];
  /**
   * What a parent that ends DEAD or CANCELLED means: `'cancel'` cancels this task (and, in
   * turn, its own dependents that cancel); `'run'` counts the parent as finished.
   * @default 'cancel'
   */
  readonly onParentDead?: OnParentDead;
}

/** SQS's MessageGroupId alphabet (printable ASCII without space), which ids must also fit. */
const KEY_PATTERN = /^[\x21-\x7e]{1,128}$/;
const nextUlid = monotonicFactory();

/**
 * The next enqueue sequence (see `TaskRecord.sequence`): strictly increasing within this
 * process, shared with generated ids.
 */
export function nextSequence(): string {
  return nextUlid();
}

function checkKey(issues: ValidationIssue[], path: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'string' || !KEY_PATTERN.test(value))) {
    const received = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
    issues.push({
      path,
      message: `expected 1-128 printable ASCII characters without spaces, received ${received}`,
    });
  }
}

/**
 * Firing ids (`<schedule>@<scheduledTime>`) are the only ids with `@`, so a producer can
 * never take a firing's id and have the genuine firing dropped as a duplicate. Debounced
 * tasks' ids (`debounce-…`) are reserved too: only they may have their payload replaced.
 */
function checkIdNamespace(issues: ValidationIssue[], id: unknown): void {
  if (typeof id === 'string' && KEY_PATTERN.test(id) && id.startsWith(DEBOUNCE_ID_PREFIX)) {
    issues.push({
      path: 'options.id',
      message: `expected no '${DEBOUNCE_ID_PREFIX}' prefix (reserved for debounced tasks), received ${JSON.stringify(id.slice(0, 80))}`,
    });
  }
  if (typeof id === 'string' && KEY_PATTERN.test(id) && id.includes('@')) {
    issues.push({
      path: 'options.id',
      message: `expected no '@' (ids with '@' are reserved for recurring schedules' firings), received ${JSON.stringify(id.slice(0, 80))}`,
    });
  }
}

/**
 * Validates and serializes one enqueue: options, payload schema, JSON form and size.
 *
 * @throws ValidationError with every problem in the options and payload together, unknown
 *   option names included.
 * @throws PayloadTooLargeError when the JSON payload exceeds `maxPayloadBytes`.
 */
export async function prepareTask(
  task: TaskDefinition,
  payload: unknown,
  given: EnqueueOptions,
  maxPayloadBytes: number,
  now: number = Date.now(),
): Promise<NewTask> {
  const issues: ValidationIssue[] = [];
  checkOptionKeys(issues, given, ENQUEUE_OPTION_KEYS);
  // From JavaScript, options may be anything; the issue above already says so.
  const options: EnqueueOptions = typeof given === 'object' && given !== null ? given : {};
  checkKey(issues, 'options.id', options.id);
  checkIdNamespace(issues, options.id);
  checkKey(issues, 'options.orderingKey', options.orderingKey);
  if (
    typeof options.orderingKey === 'string' &&
    options.orderingKey.startsWith(UNKEYED_GROUP_PREFIX)
  ) {
    // The prefix names the groups of unkeyed tasks: a key with it could share one.
    issues.push({
      path: 'options.orderingKey',
      message: `expected a key that does not start with '${UNKEYED_GROUP_PREFIX}' (reserved for the message groups of tasks without a key), received ${JSON.stringify(options.orderingKey.slice(0, 80))}`,
    });
  }
  const debounce = checkDebounce(issues, options as Record<string, unknown>);
  const runAt = debounce === undefined ? checkRunAt(issues, options, now) : now + debounce.windowMs;
  // The payload travels as JSON, so the schema judges what the worker will see: the value
  // after a JSON round trip (a Date becomes a string, undefined fields vanish).
  let payloadJson: string | undefined;
  try {
    payloadJson = canonicalJson(payload);
    if (payloadJson === undefined)
      issues.push({ path: 'payload', message: 'expected a JSON-serializable value' });
  } catch (err) {
    issues.push({
      path: 'payload',
      message: `is not JSON-serializable: ${(err as Error).message}`,
    });
  }
  if (payloadJson !== undefined) {
    const result = await task.schema['~standard'].validate(JSON.parse(payloadJson));
    for (const issue of result.issues ?? []) {
      const path = (issue.path ?? [])
        .map((s) => String(typeof s === 'object' ? s.key : s))
        .join('.');
      issues.push({ path: path === '' ? 'payload' : `payload.${path}`, message: issue.message });
    }
  }
  const id = options.id ?? nextUlid();
  const { parents, onParentDead } = checkDependencies(issues, options, id, runAt !== undefined);
  if (issues.length > 0 || payloadJson === undefined) {
    throw new ValidationError(`enqueue of task type '${task.type}'`, issues);
  }
  const size = Buffer.byteLength(payloadJson, 'utf8');
  if (size > maxPayloadBytes) throw new PayloadTooLargeError(task.type, size, maxPayloadBytes);
  return {
    id,
    type: task.type,
    payloadJson,
    payloadHash: payloadHash(task.type, payloadJson),
    maxAttempts: task.retry.maxAttempts,
    timeoutMs: task.timeoutMs,
    orderingKey: options.orderingKey,
    messageGroupId: messageGroupOf({ id, orderingKey: options.orderingKey }),
    ...(runAt !== undefined && runAt > now ? { runAt } : {}),
    // Only keyed tasks of a parking type carry it: the default costs no bytes.
    ...(task.onDead === OnDead.PARK && options.orderingKey !== undefined
      ? { onDead: OnDead.PARK }
      : {}),
    // Stored so that every later send of the task goes to its lane; the default costs no bytes.
    ...(task.lane === undefined ? {} : { lane: task.lane }),
    ...(debounce === undefined ? {} : { debounce }),
    ...(parents === undefined ? {} : { parents }),
    ...(onParentDead === undefined ? {} : { onParentDead }),
  };
}

function checkedInstant(issues: ValidationIssue[], path: string, ms: number): number | undefined {
  const problem = instantProblem(ms);
  if (problem === undefined) return ms;
  issues.push({ path, message: problem });
  return undefined;
}

/** Validates `runAt` / `delay`; returns the run time in epoch ms, if any. */
function checkRunAt(
  issues: ValidationIssue[],
  options: EnqueueOptions,
  now: number,
): number | undefined {
  const { runAt, delay } = options as { runAt?: unknown; delay?: unknown };
  if (runAt !== undefined && delay !== undefined) {
    issues.push({ path: 'options.delay', message: 'expected runAt or delay, not both' });
    return undefined;
  }
  if (runAt !== undefined) {
    if (!(runAt instanceof Date) || Number.isNaN(runAt.getTime())) {
      const received =
        runAt instanceof Date ? 'an invalid Date' : `${typeof runAt} ${JSON.stringify(runAt)}`;
      issues.push({
        path: 'options.runAt',
        message: `expected a valid Date, received ${received}`,
      });
      return undefined;
    }
    return checkedInstant(issues, 'options.runAt', runAt.getTime());
  }
  if (delay !== undefined) {
    if (typeof delay !== 'number' || !Number.isSafeInteger(delay) || delay < 0) {
      issues.push({
        path: 'options.delay',
        message: `expected a whole number of milliseconds, 0 or more, received ${JSON.stringify(delay) ?? typeof delay}`,
      });
      return undefined;
    }
    return checkedInstant(issues, 'options.delay', now + delay);
  }
  return undefined;
}
