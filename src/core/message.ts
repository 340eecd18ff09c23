/**
 * The message format: the SQS body of a task (its envelope) and of a recurring schedule's
 * firing, how a worker parses either without ever throwing, and the FIFO message group a
 * task's messages go to.
 */
import { createHash } from 'node:crypto';
import { MESSAGE_SCHEMA_VERSION } from './constants.js';
import {
  anything,
  type CheckIssue,
  integer,
  issuesOf,
  literal,
  optional,
  strictObject,
  text,
} from './message-check.js';
import type { TaskRecord } from './record.js';
import { validTraceparent } from './traceparent.js';

/** Bodies above this size cannot be ours; they are rejected before parsing. */
const MAX_ENVELOPE_BYTES = 16 * 1024;

const envelopeCheck = strictObject({
  tasklane: literal(MESSAGE_SCHEMA_VERSION),
  id: text(1, 128),
  type: text(1, 128),
  createdAt: optional(integer(0, Number.MAX_SAFE_INTEGER)),
});

/**
 * The SQS message body. It carries only the task's identity: the payload lives in the
 * record, which the claim reads, so a message cannot smuggle a payload past validation.
 */
export interface TaskEnvelope {
  readonly tasklane: typeof MESSAGE_SCHEMA_VERSION;
  readonly id: string;
  readonly type: string;
  /**
   * The record's `createdAt`: which task of the id the message is for. A purge frees an id,
   * and a message of the purged task (a crashed worker's, a dead letter moved back) must not
   * claim a later task of the same id (docs/adr/0063-messages-name-their-task-incarnation.md).
   * Absent from messages sent before it existed: those claim as they did.
   */
  readonly createdAt?: number;
}

/**
 * Whether a message names an earlier record of its task's id than `record` (one purged, then
 * enqueued again): it names a `createdAt`, and not the record's. A message without one (sent
 * before messages named their record) is taken as the record's (ADR 0063).
 */
export function namesEarlierRecord(
  envelope: { readonly createdAt?: number | undefined },
  record: { readonly createdAt: number },
): boolean {
  return envelope.createdAt !== undefined && envelope.createdAt !== record.createdAt;
}

/** The parameters of one SendMessage(Batch) entry for a task. */
export interface TaskMessage {
  readonly MessageBody: string;
  readonly MessageGroupId: string;
  readonly MessageDeduplicationId: string;
  /**
   * The producer's `traceparent`, when the record has one, as the message attribute that
   * OpenTelemetry's SQS instrumentations read (docs/tracing.md). Scheduler deliveries carry
   * none: the worker reads it from the record it claims.
   */
  readonly MessageAttributes?: {
    readonly [TRACEPARENT_ATTRIBUTE]: { readonly DataType: 'String'; readonly StringValue: string };
  };
}

/** The message attribute that carries a task's `traceparent`. */
export const TRACEPARENT_ATTRIBUTE = 'traceparent';

/**
 * Builds the message for a task's current generation. The deduplication id is hashed
 * because ids may be up to 128 characters and SQS allows 128 for the whole value; it covers
 * the record's `createdAt`, so a task enqueued again under a purged task's id within SQS's
 * five minutes is not dropped as a duplicate of the purged task's message (ADR 0063).
 * `createdAt` is left out only by tests that build a message as an older version sent it.
 */
export function taskMessage(
  record: Pick<TaskRecord, 'id' | 'type' | 'generation' | 'messageGroupId' | 'traceparent'> &
    Partial<Pick<TaskRecord, 'createdAt'>>,
): TaskMessage {
  const traceparent = validTraceparent(record.traceparent);
  const envelope: TaskEnvelope = {
    tasklane: MESSAGE_SCHEMA_VERSION,
    id: record.id,
    type: record.type,
    ...(record.createdAt === undefined ? {} : { createdAt: record.createdAt }),
  };
  const incarnation = record.createdAt === undefined ? '' : `@${record.createdAt}`;
  return {
    MessageBody: JSON.stringify(envelope),
    MessageGroupId: record.messageGroupId,
    MessageDeduplicationId: createHash('sha256')
      .update(`${record.id}#${record.generation}${incarnation}`)
      .digest('hex'),
    // Only a valid one: a record's value is untrusted, and a bad one must never fail a send.
    ...(traceparent === undefined
      ? {}
      : {
          MessageAttributes: {
            [TRACEPARENT_ATTRIBUTE]: { DataType: 'String', StringValue: traceparent },
          },
        }),
  };
}

/**
 * The task type a message body names, for metering by type before the message is checked:
 * `(unknown)` when the body is not JSON or names none. Never throws.
 */
export function messageType(body: string): string {
  try {
    const type = (JSON.parse(body) as { type?: unknown } | null)?.type;
    return typeof type === 'string' && type.length > 0 && type.length <= 128 ? type : '(unknown)';
  } catch {
    return '(unknown)';
  }
}

/** Result of {@link parseEnvelope}: the envelope, or why the body is not one. */
export type ParsedEnvelope =
  | { readonly ok: true; readonly envelope: TaskEnvelope }
  | { readonly ok: false; readonly reason: string };

/**
 * Parses a message body defensively: never throws, whatever the body holds. A reason never
 * quotes the body (it may hold anything a sender put there): it names the error, the
 * fields' paths and the schema's issue codes, and ends with the body's hash, to find it.
 */
export function parseEnvelope(body: string): ParsedEnvelope {
  const json = parseJsonBody(body);
  if (!json.ok) return json;
  return withBodyHash(checkEnvelope(json.value), body);
}

/** The first 16 hex digits of the body's SHA-256: enough to match a log line to a message. */
export function bodyHash(body: string): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

function withBodyHash<T extends { readonly ok: boolean }>(parsed: T, body: string): T {
  if (parsed.ok) return parsed;
  const failed = parsed as T & { readonly reason: string };
  return { ...failed, reason: `${failed.reason}; body sha256 ${bodyHash(body)}` };
}

function parseJsonBody(
  body: string,
):
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string } {
  if (Buffer.byteLength(body, 'utf8') > MAX_ENVELOPE_BYTES) {
    return withBodyHash(
      { ok: false, reason: `body is larger than ${MAX_ENVELOPE_BYTES} bytes` },
      body,
    );
  }
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (err) {
    // The parser's message quotes the body: only the error's name is kept.
    return withBodyHash({ ok: false, reason: `body is not JSON (${(err as Error).name})` }, body);
  }
}

function checkEnvelope(json: unknown): ParsedEnvelope {
  const issues = issuesOf(envelopeCheck, json);
  if (issues.length > 0) {
    return { ok: false, reason: `body is not a Tasklane envelope (${describeIssues(issues)})` };
  }
  const { id, type, createdAt } = json as TaskEnvelope;
  return {
    ok: true,
    envelope: {
      tasklane: MESSAGE_SCHEMA_VERSION,
      id,
      type,
      ...(createdAt === undefined ? {} : { createdAt }),
    },
  };
}

/**
 * Each issue's path and code. Never a value, which may be anything a sender put there, nor
 * the names of unrecognized keys, which come from the body.
 */
function describeIssues(issues: readonly CheckIssue[]): string {
  return issues.map((i) => `${i.path.slice(0, 64) || '(root)'}: ${i.code}`).join('; ');
}

/** EventBridge Scheduler's rule for schedule and group names: 1-64 of [0-9a-zA-Z-_.]. */
export const SCHEDULE_NAME_PATTERN = /^[0-9a-zA-Z_.-]{1,64}$/;

/**
 * EventBridge Scheduler's context attributes: placeholders in a target's input that the
 * service replaces at each invocation.
 */
export const SchedulerContext = {
  /** How every placeholder begins; a payload must not contain it. */
  PREFIX: '<aws.scheduler.',
  SCHEDULED_TIME: '<aws.scheduler.scheduled-time>',
  EXECUTION_ID: '<aws.scheduler.execution-id>',
  ATTEMPT_NUMBER: '<aws.scheduler.attempt-number>',
  SCHEDULE_ARN: '<aws.scheduler.schedule-arn>',
} as const;

/** Replaces each placeholder of `input` with its value in `values`. */
export function substituteContext(input: string, values: Readonly<Record<string, string>>): string {
  let out = input;
  for (const [placeholder, value] of Object.entries(values))
    out = out.split(placeholder).join(value);
  return out;
}

/** `<aws.scheduler.scheduled-time>` once substituted: ISO 8601 in whole seconds, UTC. */
const SCHEDULED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** Whether a `scheduledTime` names a real instant: Date.parse rolls 30 February over. */
function realTime(t: string): boolean {
  const ms = Date.parse(t);
  return !Number.isNaN(ms) && new Date(ms).toISOString().replace('.000Z', 'Z') === t;
}

const firingCheck = strictObject({
  tasklane: literal(MESSAGE_SCHEMA_VERSION),
  kind: literal('firing'),
  schedule: text(1, Number.MAX_SAFE_INTEGER, SCHEDULE_NAME_PATTERN),
  scheduledTime: text(0, Number.MAX_SAFE_INTEGER, SCHEDULED_TIME, realTime),
  /** Which delivery this is; Scheduler gives each invocation attempt its own execution id. */
  execution: strictObject({ id: text(1, 128), attempt: text(0, 4, /^\d{1,4}$/) }),
  type: text(1, 128),
  orderingKey: optional(text(1, 128)),
  payload: anything,
});

/**
 * The body a recurring schedule sends, once Scheduler has substituted its context
 * attributes. A firing has no task record yet: the worker creates the task
 * `<schedule>@<scheduledTime>` from it, so every delivery of one firing is one task.
 */
export interface FiringEnvelope {
  readonly tasklane: typeof MESSAGE_SCHEMA_VERSION;
  readonly kind: 'firing';
  readonly schedule: string;
  readonly scheduledTime: string;
  readonly execution: { readonly id: string; readonly attempt: string };
  readonly type: string;
  readonly orderingKey?: string;
  readonly payload?: unknown;
}

/** A fresh firing holding only the checked fields. */
function firingOf(value: FiringEnvelope): FiringEnvelope {
  const { schedule, scheduledTime, execution, type, orderingKey } = value;
  return {
    tasklane: MESSAGE_SCHEMA_VERSION,
    kind: 'firing',
    schedule,
    scheduledTime,
    execution: { id: execution.id, attempt: execution.attempt },
    type,
    ...(orderingKey === undefined ? {} : { orderingKey }),
    ...(Object.hasOwn(value, 'payload') ? { payload: value.payload } : {}),
  };
}

/** Result of {@link parseMessage}. */
export type ParsedMessage =
  | { readonly ok: true; readonly kind: 'task'; readonly envelope: TaskEnvelope }
  | { readonly ok: true; readonly kind: 'firing'; readonly firing: FiringEnvelope }
  | { readonly ok: false; readonly reason: string };

/**
 * Parses any body the worker may receive: a task envelope (sent by the SDK, or by a
 * delayed task's one-time schedule) or a recurring schedule's firing. Never throws.
 */
export function parseMessage(body: string): ParsedMessage {
  const json = parseJsonBody(body);
  if (!json.ok) return json;
  const value = json.value;
  if (typeof value === 'object' && value !== null && 'kind' in value) {
    const issues = issuesOf(firingCheck, value);
    if (issues.length > 0) {
      return withBodyHash(
        { ok: false, reason: `body is not a Tasklane firing (${describeIssues(issues)})` },
        body,
      );
    }
    return { ok: true, kind: 'firing', firing: firingOf(value as FiringEnvelope) };
  }
  const envelope = withBodyHash(checkEnvelope(value), body);
  return envelope.ok ? { ok: true, kind: 'task', envelope: envelope.envelope } : envelope;
}

/**
 * The target input of a recurring schedule: a firing whose time and execution are
 * Scheduler's context attributes, substituted at each invocation. The scheduled time makes
 * every firing's body unique, which the queue's content-based deduplication needs.
 */
export function firingTemplate(fields: {
  readonly schedule: string;
  readonly type: string;
  readonly payload: unknown;
  readonly orderingKey?: string | undefined;
}): string {
  const template = {
    tasklane: MESSAGE_SCHEMA_VERSION,
    kind: 'firing',
    schedule: fields.schedule,
    scheduledTime: SchedulerContext.SCHEDULED_TIME,
    execution: { id: SchedulerContext.EXECUTION_ID, attempt: SchedulerContext.ATTEMPT_NUMBER },
    type: fields.type,
    ...(fields.orderingKey === undefined ? {} : { orderingKey: fields.orderingKey }),
    payload: fields.payload,
  };
  return JSON.stringify(template);
}

/*
 * The FIFO message group of a task (docs/adr/0032-parked-keys-lanes-and-groups.md). Keyed
 * tasks share their ordering key's group, which is the key itself; a task without a key gets
 * a group of its own, in a namespace that no key can enter: it starts with
 * `UNKEYED_GROUP_PREFIX`, which an ordering key may not start with. So an unkeyed task whose
 * id happens to equal some ordering key never waits in that key's group.
 */

/** The first character of every unkeyed group; ordering keys may not start with it. */
export const UNKEYED_GROUP_PREFIX = '~';

/** SQS's longest MessageGroupId. */
const MAX_GROUP_LENGTH = 128;

/**
 * The group of a task (or a schedule's firings) without an ordering key: the prefix and the
 * id, or, for an id too long to fit beside the prefix (128 characters), the prefix and the
 * id's SHA-256 in hex. Both forms start with the prefix, so neither can be a key's group;
 * two unkeyed ids share a group only through a SHA-256 collision, and sharing one would
 * only make them run one after the other.
 */
export function unkeyedGroup(id: string): string {
  const plain = `${UNKEYED_GROUP_PREFIX}${id}`;
  if (plain.length <= MAX_GROUP_LENGTH) return plain;
  return `${UNKEYED_GROUP_PREFIX}${createHash('sha256').update(id).digest('hex')}`;
}

/** The message group of a task: its ordering key's, or one of its own. */
export function messageGroupOf(task: {
  readonly id: string;
  readonly orderingKey?: string | undefined;
}): string {
  return task.orderingKey ?? unkeyedGroup(task.id);
}

/**
 * Whether a message in `group` is in `task`'s group, as the claim's fence judges it
 * (store/transitions.ts): its group, or, for an unkeyed task whose record stores none, its
 * bare id, the group older producers sent unkeyed tasks in.
 */
export function inTaskGroup(
  task: {
    readonly id: string;
    readonly orderingKey?: string | undefined;
    readonly messageGroupId: string;
  },
  group: string,
): boolean {
  if (group === task.messageGroupId) return true;
  return (
    task.orderingKey === undefined &&
    task.messageGroupId === unkeyedGroup(task.id) &&
    group === task.id
  );
}

/**
 * The ordering key a message's group names, for the task `id` it carries: none for an
 * unkeyed group, nor for the task's own id, the group of an unkeyed task sent before the
 * prefix existed (its record keeps no `messageGroupId`, and is read as its id's group).
 */
export function orderingKeyOfGroup(group: string | undefined, id: string): string | undefined {
  if (group === undefined || group === id || group.startsWith(UNKEYED_GROUP_PREFIX)) {
    return undefined;
  }
  return group;
}
