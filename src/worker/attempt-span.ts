/**
 * Each attempt of a task as an OpenTelemetry span: started after its claim, ended once its
 * outcome is written, linked to the span that enqueued the task, with the task's id, type,
 * attempt and outcome as attributes. The handler runs in the span's context, so its own
 * spans are children of it, and so are durable steps' (`ProcessorDeps.traceStep`). Without a
 * registered tracer provider nothing here runs, and `@opentelemetry/api` is never imported
 * (docs/tracing.md, docs/adr/0050-progress-within-a-second-and-traced-attempts.md).
 */
import type { SQSRecord } from 'aws-lambda';
import { AuditEvent } from '../core/constants.js';
import { LeaseLostError } from '../core/errors.js';
import { TRACEPARENT_ATTRIBUTE } from '../core/message.js';
import type { TaskRecord } from '../core/record.js';
import { parseTraceparent, traceparentIssue } from '../core/traceparent.js';
import type { TaskLogger } from '../observability/logger.js';
import {
  type OtelSpan,
  type OtelSpanContext,
  registeredTracing,
  SpanKind,
  SpanStatusCode,
  type Tracing,
} from '../observability/tracing.js';
import type { TaskStore } from '../store/task-store.js';
import type { Outcome, ProcessorDeps } from './deps.js';
import { type ClaimedTask, execute } from './execution.js';

/** The tracer's name: the instrumentation scope of Tasklane's spans. */
export const TRACER_NAME = 'tasklane';

/** Attributes of an attempt's span (the `messaging.*` ones follow OpenTelemetry's conventions). */
export const AttemptAttribute = {
  TASK_ID: 'tasklane.task.id',
  TASK_TYPE: 'tasklane.task.type',
  ATTEMPT: 'tasklane.task.attempt',
  /** What the attempt ended in: an audit event's name (`succeeded`, `retry-scheduled`, …). */
  OUTCOME: 'tasklane.task.outcome',
  STEP_NAME: 'tasklane.step.name',
} as const;

/**
 * The store's writes that end an attempt, and the outcome each records. A fenced write
 * refused (LeaseLostError) ends it `stale-dropped`: the worker lost its lease.
 */
const ENDINGS = {
  complete: AuditEvent.SUCCEEDED,
  retry: AuditEvent.RETRY_SCHEDULED,
  kill: AuditEvent.DEAD,
  expire: AuditEvent.DEAD,
  cancelRunning: AuditEvent.CANCELLED,
  unclaim: AuditEvent.UNCLAIMED,
  continueRun: AuditEvent.CONTINUED,
} as const satisfies Partial<Record<keyof TaskStore, AuditEvent>>;

/** The lease holder's other fenced writes: a refusal of one also ends the attempt stale. */
const LEASE_WRITES = [
  'extendLease',
  'saveCheckpoint',
] as const satisfies readonly (keyof TaskStore)[];

/** The outcomes whose span is an error: the attempt failed. */
const FAILED: ReadonlySet<string> = new Set([
  AuditEvent.RETRY_SCHEDULED,
  AuditEvent.DEAD,
  AuditEvent.STALE_DROPPED,
  'error',
]);

/**
 * Runs a claimed task ({@link execute}) inside its attempt's span when the worker traces;
 * exactly {@link execute} otherwise, with nothing loaded.
 */
export async function executeTraced(
  task: ClaimedTask,
  message: SQSRecord,
  deps: ProcessorDeps,
): Promise<Outcome> {
  const tracing = registeredTracing(deps.tracing, TRACER_NAME);
  if (tracing === undefined) return execute(task, deps);
  const span = startAttemptSpan(tracing, task, message, deps.logger);
  const ended = { outcome: undefined as string | undefined, record: undefined as unknown };
  const traced: ProcessorDeps = {
    ...deps,
    store: observedStore(deps.store, ended),
    traceStep: (name, fn) => stepSpan(tracing, name, fn),
  };
  try {
    const outcome = await tracing.withSpan(span, () => execute(task, traced));
    endAttemptSpan(span, ended.outcome ?? fallbackOutcome(outcome), ended.record);
    return outcome;
  } catch (err) {
    span.recordException(err instanceof Error ? err : { name: 'Error', message: String(err) });
    endAttemptSpan(span, 'error', undefined);
    throw err;
  }
}

/** The attempt's span, linked to the producer's: the record's traceparent, else the message's. */
function startAttemptSpan(
  tracing: Tracing,
  task: ClaimedTask,
  message: SQSRecord,
  logger: TaskLogger,
): OtelSpan {
  const { record, lease } = task;
  const producer = producerSpan(record, message, logger);
  const queue = message.eventSourceARN.split(':').at(-1) ?? '';
  return tracing.tracer.startSpan(`process ${record.type}`, {
    kind: SpanKind.CONSUMER,
    ...(producer === undefined ? {} : { links: [{ context: producer }] }),
    attributes: {
      [AttemptAttribute.TASK_ID]: record.id,
      [AttemptAttribute.TASK_TYPE]: record.type,
      [AttemptAttribute.ATTEMPT]: lease.attempt,
      'messaging.system': 'aws_sqs',
      'messaging.operation.type': 'process',
      'messaging.destination.name': queue,
      'messaging.message.id': message.messageId,
    },
  });
}

/**
 * The producer's span: the record's `traceparent`, else the message's. A value that is not a
 * valid one is ignored, and the reason logged: it only loses the link (docs/tracing.md).
 */
function producerSpan(
  record: TaskRecord,
  message: SQSRecord,
  logger: TaskLogger,
): OtelSpanContext | undefined {
  const sources = [
    ['record', record.traceparent],
    ['message attribute', message.messageAttributes?.[TRACEPARENT_ATTRIBUTE]?.stringValue],
  ] as const;
  for (const [source, value] of sources) {
    if (value === undefined) continue;
    const parsed = parseTraceparent(value);
    if (parsed !== undefined) return parsed;
    logger.warn('traceparent ignored: the attempt span is not linked to it', {
      taskId: record.id,
      source,
      reason: traceparentIssue(value) ?? '',
    });
  }
  return undefined;
}

function endAttemptSpan(span: OtelSpan, outcome: string, record: unknown): void {
  span.setAttribute(AttemptAttribute.OUTCOME, outcome);
  if (FAILED.has(outcome)) {
    const error = (record as TaskRecord | undefined)?.lastError;
    if (error !== undefined) span.recordException({ name: error.name, message: error.message });
    span.setStatus({ code: SpanStatusCode.ERROR, message: error?.message ?? outcome });
  }
  span.end();
}

/** When no ending write was seen (an infrastructure failure, a hold): what the message got. */
function fallbackOutcome(outcome: Outcome): string {
  return outcome.kind === 'fail' ? 'error' : outcome.kind === 'ack' ? 'acknowledged' : 'returned';
}

/**
 * The store, with its attempt-ending writes noted in `ended`: the last one seen is the
 * attempt's outcome. Every other call goes to the store as it is.
 */
function observedStore(
  store: TaskStore,
  ended: { outcome: string | undefined; record: unknown },
): TaskStore {
  const observed = Object.create(store) as TaskStore;
  const watched: [keyof TaskStore, string | undefined][] = [
    ...(Object.entries(ENDINGS) as [keyof typeof ENDINGS, string][]),
    ...LEASE_WRITES.map((method): [keyof TaskStore, undefined] => [method, undefined]),
  ];
  for (const [method, outcome] of watched) {
    const write = store[method] as (...args: unknown[]) => Promise<unknown>;
    (observed as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      try {
        const record = await write.apply(store, args);
        if (outcome !== undefined) {
          ended.outcome = outcome;
          ended.record = record;
        }
        return record;
      } catch (err) {
        if (err instanceof LeaseLostError) ended.outcome = AuditEvent.STALE_DROPPED;
        throw err;
      }
    };
  }
  return observed;
}

/** A durable step's child span, around the step's own work. */
async function stepSpan<T>(tracing: Tracing, name: string, fn: () => Promise<T> | T): Promise<T> {
  const span = tracing.tracer.startSpan(`step ${name}`, {
    kind: SpanKind.INTERNAL,
    attributes: { [AttemptAttribute.STEP_NAME]: name },
  });
  try {
    return await tracing.withSpan(span, fn);
  } catch (err) {
    span.recordException(err instanceof Error ? err : { name: 'Error', message: String(err) });
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message ?? '' });
    throw err;
  } finally {
    span.end();
  }
}
