/**
 * The lifecycle event a worker's write stands for, built from the record it wrote: a
 * terminal record's Succeeded, Dead or Cancelled, a retry's Failed (docs/events.md). Apart
 * from the event's shape (./lifecycle-event.ts), which the package exports, so that a worker
 * loads this with its events, on first use (docs/adr/0070-store-parts-on-first-use.md).
 */
import { AuditEvent, TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import {
  type LifecycleEvent,
  LifecycleEventType,
  MAX_EVENT_RESULT_BYTES,
} from './lifecycle-event.js';

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
