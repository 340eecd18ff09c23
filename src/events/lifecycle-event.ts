import type { TaskStatus } from '../core/constants.js';
import type { TaskErrorInfo } from '../core/record.js';

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
