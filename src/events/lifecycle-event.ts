import { AuditEvent, TaskStatus } from '../core/constants.js';
import type { TaskErrorInfo, TaskRecord } from '../core/record.js';

/**
 * The `detail-type` of each lifecycle event. `Failed` is an attempt that failed with
 * attempts left (the task will run again); the other three are terminal.
 */
export const LifecycleEventType = {
  SUCCEEDED: 'Tasklane Task Succeeded',
  FAILED: 'Tasklane Task Failed',
  DEAD: 'Tasklane Task Dead',
  CANCELLED: 'Tasklane Task Cancelled',
} as const;

/** One of the {@link LifecycleEventType} values. */
export type LifecycleEventType = (typeof LifecycleEventType)[keyof typeof LifecycleEventType];

/**
 * Largest result carried in an event, as UTF-8 JSON. A larger result is left out and
 * `resultTruncated` is set; read it with `TaskClient.get`. Keeps ten events well inside
 * one 256 KB PutEvents request.
 */
export const MAX_EVENT_RESULT_BYTES = 8 * 1024;

/**
 * The `detail` of a lifecycle event. Times are ISO 8601 strings. `taskId` is the task's one
 * identity: events are delivered at least once, so a consumer deduplicates on
 * `taskId` + `status` (+ `attempt` for `Failed`).
 */
export interface TaskEventDetail {
  readonly taskId: string;
  readonly type: string;
  /** The task's status after the event: SUCCEEDED, QUEUED (Failed), DEAD or CANCELLED. */
  readonly status: TaskStatus;
  /** The attempt the event is about; 0 for a task cancelled before it ran. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly orderingKey: string | null;
  readonly enqueuedAt: string;
  /** When the attempt was claimed; null when it never ran. */
  readonly startedAt: string | null;
  /** When the attempt (or the task) ended. */
  readonly finishedAt: string;
  /** `finishedAt - startedAt` in ms; null when it never ran. */
  readonly durationMs: number | null;
  /** The attempt's error (Failed, Dead); null otherwise. */
  readonly error: TaskErrorInfo | null;
  /** Why the task is dead (Dead only); null otherwise. */
  readonly deadReason: string | null;
  /** The handler's result (Succeeded), or null when none or over the limit. */
  readonly result: unknown;
  /** True when the result was over {@link MAX_EVENT_RESULT_BYTES} and left out. */
  readonly resultTruncated: boolean;
}

/** A lifecycle event before it is addressed to a bus. */
export interface LifecycleEvent {
  readonly detailType: LifecycleEventType;
  readonly detail: TaskEventDetail;
}

/**
 * The event that a record in a terminal status stands for, or undefined (ROLLED_BACK, and
 * every non-terminal status: a Failed event is only built from the retry write itself, see
 * {@link failedEvent}).
 */
export function terminalEvent(record: TaskRecord): LifecycleEvent | undefined {
  switch (record.status) {
    case TaskStatus.SUCCEEDED:
      return build(LifecycleEventType.SUCCEEDED, record);
    case TaskStatus.DEAD:
      return build(LifecycleEventType.DEAD, record);
    case TaskStatus.CANCELLED:
      return build(LifecycleEventType.CANCELLED, record);
    default:
      return undefined;
  }
}

/** The Failed event of the record a retry write returned (QUEUED, with the attempt's error). */
export function failedEvent(record: TaskRecord): LifecycleEvent {
  return build(LifecycleEventType.FAILED, record);
}

function build(detailType: LifecycleEventType, record: TaskRecord): LifecycleEvent {
  // A cancelled task's earlier attempts (if any) are not what the event is about.
  const started = detailType === LifecycleEventType.CANCELLED ? undefined : startedAt(record);
  const finished = record.finishedAt ?? record.updatedAt;
  const { result, resultTruncated } = boundedResult(record);
  const failed = detailType === LifecycleEventType.FAILED || detailType === LifecycleEventType.DEAD;
  return {
    detailType,
    detail: {
      taskId: record.id,
      type: record.type,
      status: record.status,
      attempt: record.attempt,
      maxAttempts: record.maxAttempts,
      orderingKey: record.orderingKey ?? null,
      enqueuedAt: iso(record.createdAt),
      startedAt: started === undefined ? null : iso(started),
      finishedAt: iso(finished),
      durationMs: started === undefined ? null : Math.max(0, finished - started),
      error: failed ? (record.lastError ?? null) : null,
      deadReason: detailType === LifecycleEventType.DEAD ? (record.deadReason ?? null) : null,
      result,
      resultTruncated,
    },
  };
}

/** When the record's current attempt was claimed, from its newest `claimed` history entry. */
function startedAt(record: TaskRecord): number | undefined {
  if (record.attempt === 0) return undefined;
  for (let i = record.history.length - 1; i >= 0; i--) {
    const entry = record.history[i];
    if (entry?.event === AuditEvent.CLAIMED && entry.attempt === record.attempt) return entry.at;
  }
  return undefined;
}

function boundedResult(record: TaskRecord): { result: unknown; resultTruncated: boolean } {
  if (record.status !== TaskStatus.SUCCEEDED || record.result === undefined) {
    return { result: null, resultTruncated: false };
  }
  const bytes = Buffer.byteLength(JSON.stringify(record.result), 'utf8');
  return bytes > MAX_EVENT_RESULT_BYTES
    ? { result: null, resultTruncated: true }
    : { result: record.result, resultTruncated: false };
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
