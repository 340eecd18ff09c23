/**
 * `TaskClient.signal` and `signalWithToken` (docs/durable-tasks.md,
 * docs/adr/0048-durable-sleep-signals-pause.md, docs/adr/0066-signal-head-off-the-task-item.md):
 * a signal is stored for the task with one conditional write (a transaction of a check of the
 * task's item, which writes nothing, the task's signal head, which counts it, and the signal's
 * item), whatever the task is doing: a wait that comes later finds it. When the task waits
 * for it, the sender then makes its message come (the held one shown, or a new one sent), and
 * the claim it brings finds the signal in the head and wakes the task; the head, filed in the
 * sweeper's wake partition, lets the sweeper wake it if that message is lost.
 */
import { randomUUID } from 'node:crypto';
import { keySegment, ObjectPrefix } from '../claim-check/object-ref.js';
import type { ObjectStore } from '../claim-check/object-store.js';
import { AuditEvent, Defaults, isTerminal } from '../core/constants.js';
import {
  ConfigurationError,
  PayloadTooLargeError,
  SignalTokenError,
  TaskNotFoundError,
  TransitionRejectedError,
  ValidationError,
  type ValidationIssue,
} from '../core/errors.js';
import type { ObjectRef, TaskRecord } from '../core/record.js';
import { readSignalToken } from '../integrity/signal-token.js';
import type { IntegrityTag } from '../integrity/tag.js';
import { logAudit } from '../observability/audit.js';
import type { TaskLogger } from '../observability/logger.js';
import type { Waker } from '../scheduler/waker.js';
import { canonicalJson } from '../store/record.js';
import { signalWrites } from '../store/signal-writes.js';
import { SignalStore, signalCount } from '../store/signals.js';
import type { TaskStore } from '../store/task-store.js';
import { taskIdIssue } from './task-ids.js';

/** Options of `TaskClient.signal`. */
export interface SignalOptions {
  /**
   * This signal's id (1-128 printable ASCII characters without spaces): sending a signal
   * again with the same id (a retry after a crash or a timeout) stores it once. Kept as long
   * as the signal. @default none: every call stores a signal
   */
  readonly signalId?: string;
}

/** What `TaskClient.signal` did. */
export interface SignalResult {
  readonly taskId: string;
  readonly name: string;
  /** The signal's position in the order the task was sent its signals (from 0). */
  readonly seq: number | undefined;
  /**
   * The task was waiting for this signal, and was woken (by a duplicate too, when the task,
   * as read, still waits for the name: the first send's wake may have been lost).
   */
  readonly woke: boolean;
  /** A signal with this `signalId` had been stored before: nothing was written. */
  readonly duplicate: boolean;
}

/** What a signal's sender needs. */
export interface SignalDeps {
  readonly store: TaskStore;
  readonly waker: Waker;
  readonly objects: ObjectStore;
  /** Largest signal data with a payload bucket. */
  readonly maxSignalBytes: number;
  readonly logger: TaskLogger;
  readonly clock: () => number;
}

/** Longest signal name: a step name's limit, as the wait that consumes it takes a step's position. */
const MAX_NAME_CHARS = 200;
/** Tries of a signal's write when other writes move the task between its read and its write. */
const MAX_ROUNDS = 8;

/**
 * Stores the signal `name` with `data` for the task `taskId`, and wakes it when it waits for
 * it. `createdAt`, from a signal token, pins the task the token was made for.
 *
 * @throws ValidationError for a bad name, signal id or data (not JSON; above 4 KB without a
 *   payload bucket), or for a task sent the most signals it takes (1000).
 * @throws PayloadTooLargeError for data above the limit with a payload bucket.
 * @throws TaskNotFoundError when no task has this id.
 * @throws TransitionRejectedError when the task has finished: `current` says how.
 */
export async function sendSignal(
  taskId: string,
  name: string,
  data: unknown,
  options: SignalOptions,
  deps: SignalDeps,
  createdAt?: number,
): Promise<SignalResult> {
  checkSignal(taskId, name, options);
  const json = dataJson(data);
  let record = await deps.store.get(taskId);
  if (record !== undefined && createdAt !== undefined && record.createdAt !== createdAt) {
    throw new SignalTokenError('it was made for an earlier task of the same id, since purged');
  }
  const placed = await place(taskId, json, deps);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (record === undefined) throw new TaskNotFoundError(taskId);
    if (isTerminal(record.status)) throw new TransitionRejectedError('signal', taskId, record);
    const head = await deps.store.feature(SignalStore).head(record);
    const count = signalCount(record, head);
    if (count >= Defaults.MAX_SIGNALS) {
      throw new ValidationError('signal', [
        {
          path: 'taskId',
          message: `expected a task sent fewer than ${Defaults.MAX_SIGNALS} signals (the most one task takes), received one sent ${count}`,
        },
      ]);
    }
    const seen = record;
    const sent = await signalWrites(deps.store).send(seen, head, {
      name,
      ...placed,
      ...(options.signalId === undefined ? {} : { signalId: options.signalId }),
    });
    if (sent.kind === 'duplicate') {
      // A retry of a send that stored the signal but may have died before its wake: the task
      // still waits for the name, so it is woken again. A spare wake costs one request: the
      // claim it brings finds the task already counted its signal, or holds it again.
      if (sent.waiting) await deps.waker.wake(seen, { send: seen.orderingKey === undefined });
      return { taskId, name, seq: undefined, woke: sent.waiting, duplicate: true };
    }
    if (sent.kind === 'stored') {
      audit(deps, seen, name, sent.seq, sent.woke);
      // A key's task keeps its message in its group: it is shown, never sent again.
      if (sent.woke) await deps.waker.wake(seen, { send: seen.orderingKey === undefined });
      return { taskId, name, seq: sent.seq, woke: sent.woke, duplicate: false };
    }
    record = sent.current ?? (await deps.store.get(taskId));
  }
  throw new TransitionRejectedError('signal', taskId, record);
}

/**
 * `TaskClient.signalWithToken`: sends the signal a token (`ctx.signalToken(name)`) names, to
 * the task it was made for, after its HMAC verifies under the executor's integrity key.
 *
 * @throws SignalTokenError when the token is malformed, does not verify, or names a task
 *   since purged (an id enqueued again is another task).
 * @throws ConfigurationError without an integrity key.
 * @throws what {@link sendSignal} throws.
 */
export async function sendWithToken(
  token: string,
  data: unknown,
  options: SignalOptions,
  deps: SignalDeps & { readonly integrity: IntegrityTag | undefined },
): Promise<SignalResult> {
  if (deps.integrity === undefined) {
    throw new ConfigurationError(
      "signalWithToken needs the executor's integrity key: pass `integrity` to the client, or set TASKLANE_INTEGRITY_KEY_ID",
    );
  }
  const target = await readSignalToken(deps.integrity, token);
  return sendSignal(target.taskId, target.name, data, options, deps, target.createdAt);
}

function checkSignal(taskId: unknown, name: unknown, options: SignalOptions): void {
  const issues: ValidationIssue[] = [];
  const idIssue = taskIdIssue(taskId, 'taskId');
  if (idIssue !== undefined) issues.push(idIssue);
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_CHARS) {
    const received = typeof name === 'string' ? `${name.length} characters` : typeof name;
    issues.push({
      path: 'name',
      message: `expected 1-${MAX_NAME_CHARS} characters, received ${received}`,
    });
  }
  if (options.signalId !== undefined) {
    const issue = taskIdIssue(options.signalId, 'signalId');
    if (issue !== undefined) {
      issues.push({ path: 'signalId', message: issue.message.replace('a task id', 'a signal id') });
    }
  }
  if (issues.length > 0) throw new ValidationError('signal', issues);
}

/** The data's JSON; undefined for none. @throws ValidationError when it is not JSON. */
function dataJson(data: unknown): string | undefined {
  if (data === undefined) return undefined;
  try {
    const json = canonicalJson(data);
    if (json !== undefined) return json;
  } catch (err) {
    throw new ValidationError('signal', [
      {
        path: 'data',
        message: `expected a JSON value, received one JSON cannot hold (${(err as Error).message})`,
      },
    ]);
  }
  throw new ValidationError('signal', [
    { path: 'data', message: `expected a JSON value, received ${typeof data}` },
  ]);
}

/**
 * Where the data goes: inline up to 4 KB, else the payload bucket (under `signals/`, written
 * before the signal, so an item never names a missing object).
 */
async function place(
  taskId: string,
  json: string | undefined,
  deps: SignalDeps,
): Promise<{ dataJson?: string; dataRef?: ObjectRef }> {
  if (json === undefined) return {};
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= Defaults.MAX_INLINE_SIGNAL_BYTES) return { dataJson: json };
  if (deps.objects.bucket === undefined) {
    throw new ValidationError('signal', [
      {
        path: 'data',
        message: `expected at most ${Defaults.MAX_INLINE_SIGNAL_BYTES} bytes of JSON without a payload bucket, received ${bytes} bytes`,
      },
    ]);
  }
  if (bytes > deps.maxSignalBytes) {
    throw new PayloadTooLargeError('signal', bytes, deps.maxSignalBytes);
  }
  const key = `${ObjectPrefix.SIGNALS}${keySegment(taskId)}/${randomUUID()}`;
  return { dataRef: await deps.objects.put(key, json) };
}

function audit(deps: SignalDeps, record: TaskRecord, name: string, seq: number, woke: boolean) {
  logAudit(deps.logger, {
    event: AuditEvent.SIGNALLED,
    taskId: record.id,
    taskType: record.type,
    attempt: record.attempt,
    status: record.status,
    workerId: undefined,
    at: deps.clock(),
    detail: `signal ${seq} ${JSON.stringify(name)} stored${woke ? '; the task waited for it and was woken' : ''}`,
  });
}
