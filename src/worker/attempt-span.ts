/**
 * Each attempt of a task as an OpenTelemetry span: started after its claim, ended once its
 * outcome is written, linked to the span that enqueued the task, with the task's id, type,
 * attempt and outcome as attributes. The handler runs in the span's context, so its own
 * spans are children of it, and so are durable steps' (`ProcessorDeps.traceStep`). Without a
 * registered tracer provider nothing here runs, `@opentelemetry/api` is never imported, and
 * this module, in the optional features' chunk, is not loaded
 * (docs/tracing.md, docs/adr/0050-progress-within-a-second-and-traced-attempts.md,
 * docs/adr/0070-store-parts-on-first-use.md).
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
  SpanKind,
  SpanStatusCode,
  type Tracing,
} from '../observability/tracing.js';
import type { DurableWrites } from '../store/durable-writes.js';
import type { StorePart, TaskStore } from '../store/task-store.js';
import type { ClaimedTask } from './claimed-task.js';
import type { Outcome, ProcessorDeps } from './deps.js';

// The spans' attributes are spelled out where they are set (docs/tracing.md lists them): the
// worker's bundle has a size budget (docs/adr/0006-worker-bundle.md).

/**
 * The store's writes that end an attempt, and the outcome each records; the lease holder's
 * other fenced writes have none. A fenced write refused (LeaseLostError) ends the attempt
 * `stale-dropped`: the worker lost its lease.
 */
const ENDINGS = {
  complete: AuditEvent.SUCCEEDED,
  retry: AuditEvent.RETRY_SCHEDULED,
  kill: AuditEvent.DEAD,
  expire: AuditEvent.DEAD,
  cancelRunning: AuditEvent.CANCELLED,
  unclaim: AuditEvent.UNCLAIMED,
  continueRun: AuditEvent.CONTINUED,
  extendLease: undefined,
  saveCheckpoint: undefined,
} as const satisfies Partial<Record<keyof TaskStore | keyof DurableWrites, AuditEvent | undefined>>;

/** The outcomes whose span is an error: the attempt failed. */
const FAILED: ReadonlySet<string> = new Set([
  AuditEvent.RETRY_SCHEDULED,
  AuditEvent.DEAD,
  AuditEvent.STALE_DROPPED,
  'error',
]);

/**
 * Runs a claimed task with `execute` (execution.ts's) inside its attempt's span, with the
 * tracer the app registered (claim-loop.ts runs an untraced attempt without loading this
 * module).
 */
export async function executeTraced(
  tracing: Tracing,
  task: ClaimedTask,
  message: SQSRecord,
  deps: ProcessorDeps,
  execute: (task: ClaimedTask, deps: ProcessorDeps) => Promise<Outcome>,
): Promise<Outcome> {
  const span = startAttemptSpan(tracing, task, message, deps.logger);
  const ended = { outcome: undefined as string | undefined, record: undefined as unknown };
  const traced: ProcessorDeps = {
    ...deps,
    store: observedStore(deps.store, ended),
    traceStep: (name, fn) => stepSpan(tracing, name, fn),
  };
  try {
    const outcome = await tracing.withSpan(span, () => execute(task, traced));
    // No ending write seen (an infrastructure failure, a hold): what the message got.
    const { kind } = outcome;
    const got = kind === 'fail' ? 'error' : kind === 'ack' ? 'acknowledged' : 'returned';
    endAttemptSpan(span, ended.outcome ?? got, (ended.record as TaskRecord | undefined)?.lastError);
    return outcome;
  } catch (err) {
    endAttemptSpan(span, 'error', asError(err));
    throw err;
  }
}

/**
 * The attempt's span, linked to the producer's: the record's `traceparent`, else the
 * message's. A value that is not a valid one is ignored, and the reason logged: it only loses
 * the link (docs/tracing.md).
 */
function startAttemptSpan(
  tracing: Tracing,
  task: ClaimedTask,
  message: SQSRecord,
  logger: TaskLogger,
): OtelSpan {
  const { record, lease } = task;
  let producer: OtelSpanContext | undefined;
  const sources = [
    ['record', record.traceparent],
    ['message attribute', message.messageAttributes?.[TRACEPARENT_ATTRIBUTE]?.stringValue],
  ] as const;
  for (const [source, value] of sources) {
    if (value === undefined || producer !== undefined) continue;
    producer = parseTraceparent(value);
    const reason = producer === undefined ? traceparentIssue(value) : undefined;
    if (reason !== undefined)
      logger.warn('traceparent ignored', { taskId: record.id, source, reason });
  }
  return tracing.tracer.startSpan(`process ${record.type}`, {
    kind: SpanKind.CONSUMER,
    ...(producer === undefined ? {} : { links: [{ context: producer }] }),
    attributes: {
      'tasklane.task.id': record.id,
      'tasklane.task.type': record.type,
      'tasklane.task.attempt': lease.attempt,
      'messaging.system': 'aws_sqs',
      'messaging.destination.name': message.eventSourceARN.split(':').at(-1) ?? '',
      'messaging.message.id': message.messageId,
    },
  });
}

/** Ends the attempt's span with its outcome; a failed one with status ERROR and its error. */
function endAttemptSpan(span: OtelSpan, outcome: string, error: Failure | undefined): void {
  // An audit event's name (`succeeded`, `retry-scheduled`, …), or what the message got.
  span.setAttribute('tasklane.task.outcome', outcome);
  if (FAILED.has(outcome)) failSpan(span, error, outcome);
  span.end();
}

/** An error as a span records it. */
type Failure = { readonly name: string; readonly message: string };

const asError = (err: unknown): Failure =>
  err instanceof Error ? err : { name: 'Error', message: String(err) };

/** Status ERROR, with the error, when known, as an exception event. */
function failSpan(span: OtelSpan, error: Failure | undefined, fallback: string): void {
  if (error !== undefined) span.recordException({ name: error.name, message: error.message });
  span.setStatus({ code: SpanStatusCode.ERROR, message: error?.message ?? fallback });
}

/** What the attempt's writes have shown so far. */
interface Ended {
  outcome: string | undefined;
  record: unknown;
}

/**
 * The store, with its attempt-ending writes noted in `ended`: the last one seen is the
 * attempt's outcome. The parts it makes (`feature`) are observed too: a durable run's
 * continuation and checkpoint are writes of its part (docs/adr/0070-store-parts-on-first-use.md).
 * Every other call goes to the store as it is.
 */
function observedStore(store: TaskStore, ended: Ended): TaskStore {
  const observed = withEndingsNoted(store, ended);
  observed.feature = <T>(Part: StorePart<T>): T => withEndingsNoted(store.feature(Part), ended);
  return observed;
}

/** `target`, with those of its methods that {@link ENDINGS} names noted in `ended`. */
function withEndingsNoted<T>(target: T, ended: Ended): T {
  const observed = Object.create(target as object) as T;
  const methods = target as unknown as Record<string, unknown>;
  for (const [method, outcome] of Object.entries(ENDINGS) as [string, string?][]) {
    if (typeof methods[method] !== 'function') continue;
    const write = methods[method] as (...args: unknown[]) => Promise<unknown>;
    (observed as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      try {
        const record = await write.apply(target, args);
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
    attributes: { 'tasklane.step.name': name },
  });
  try {
    return await tracing.withSpan(span, fn);
  } catch (err) {
    failSpan(span, asError(err), '');
    throw err;
  } finally {
    span.end();
  }
}
