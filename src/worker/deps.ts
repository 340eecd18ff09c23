/**
 * What the worker's modules share: their dependencies, built once per worker by
 * `createWorker`, and the outcome of a message, which the batch turns into a failure report
 * and a visibility change.
 */
import type { ObjectAccess } from '../claim-check/object-store.js';
import type { AuditEvent } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import type { WorkerEvents } from '../events/worker-events.js';
import type { IntegrityKey } from '../integrity/tag.js';
import { logAudit } from '../observability/audit.js';
import type { TaskLogger } from '../observability/logger.js';
import type { TaskMetrics } from '../observability/metrics.js';
import type { TracingOption } from '../observability/tracing.js';
import type { UsageMeter } from '../observability/usage-meter.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import type { WakeSchedules } from '../scheduler/wakes.js';
import type { TaskStore } from '../store/task-store.js';
import type { TaskDefinition } from '../tasks/task-definition.js';
import type { FiringSenders } from './firing-trust.js';
import type { RateLimiter } from './rate-limit.js';
import type { QueueRetentions } from './retry-filing.js';
import type { TakeoverGate } from './takeover-gate.js';
import type { VisibilityController } from './visibility.js';

/** What the processor needs; built once per worker by `createWorker`. */
export interface ProcessorDeps {
  readonly definitions: ReadonlyMap<string, TaskDefinition>;
  readonly store: TaskStore;
  readonly visibility: VisibilityController;
  readonly logger: TaskLogger;
  /** Counts outcomes, handler durations and queue latency; flushed by the caller per batch. */
  readonly metrics: TaskMetrics;
  /** Meters each message's requests by task type (docs/cost.md); none when absent. */
  readonly usage?: UsageMeter;
  readonly workerId: string;
  readonly clock: () => number;
  readonly leaseGraceMs: number;
  /**
   * Longest lease taken at once. A task whose timeout (plus grace) is longer gets this
   * lease and an automatic heartbeat every third of it, so a crashed worker's task is taken
   * over after at most this long instead of after its whole timeout.
   */
  readonly leaseDurationMs: number;
  /**
   * Progress after a run's first report is written at most once per this interval.
   * @default Defaults.PROGRESS_INTERVAL_MS
   */
  readonly progressIntervalMs?: number;
  /**
   * Whether attempts are traced with OpenTelemetry (docs/tracing.md). @default true
   */
  readonly tracing?: TracingOption;
  /**
   * The hook for durable steps' spans: runs a step's own work in a child span of the
   * attempt's span. Set by `executeTraced` for a traced attempt only; a step calls `fn` as it
   * is without it.
   */
  readonly traceStep?: <T>(name: string, fn: () => Promise<T> | T) => Promise<T>;
  /** Largest result accepted; a larger one makes the task DEAD (ResultTooLargeError). */
  readonly maxResultBytes: number;
  /** Largest claim-checked payload read; a larger one makes the task DEAD unrun. */
  readonly maxPayloadBytes: number;
  /** The payload bucket (claim check); without a bucket, nothing is offloaded. */
  readonly objects: ObjectAccess;
  /** Message groups processed at once within one batch. */
  readonly groupConcurrency: number;
  /** Shared by every batch of the worker: takeovers never run beside other claimed work. */
  readonly takeoverGate: TakeoverGate;
  readonly random: () => number;
  /** Who may send a recurring schedule's firing (ADR 0013). */
  readonly firingSenders: FiringSenders;
  /** Takes a start from a limited type's bucket before its claim (ADR 0026). */
  readonly rateLimits: Pick<RateLimiter, 'admit'>;
  /** Verifies each claimed record's integrity tag (and tags firings); undefined when off. */
  readonly integrity?: IntegrityKey | undefined;
  /** Sends the dependents a finished task releases; without it the sweeper sends them. */
  readonly dispatcher?: Pick<Dispatcher, 'sendAll'> | undefined;
  /**
   * Creates the one-time schedules that wake suspended tasks without an ordering key whose
   * timer is beyond `scheduleThresholdMs`; without it (no scheduling configured), their
   * messages are held instead (docs/adr/0048-durable-sleep-signals-pause.md).
   */
  readonly wakes?: Pick<WakeSchedules, 'create'> | undefined;
  /** A suspended task's timer at most this far ahead is its held message's visibility. */
  readonly scheduleThresholdMs: number;
  /**
   * The queues' message retention, which decides whether a retry may stay off the status
   * index (docs/adr/0068-a-retry-stays-off-the-index.md); without it every retry is indexed.
   */
  readonly retentions?: QueueRetentions | undefined;
  /**
   * Lifecycle events and hooks, loaded for a batch; `store` above then notes its writes'
   * events. Set by `processBatch` from {@link loadEvents}.
   */
  readonly events?: WorkerEvents | undefined;
  /** Loads lifecycle events and hooks, when asked for (docs/adr/0070-store-parts-on-first-use.md). */
  readonly loadEvents?: (() => Promise<WorkerEvents>) | undefined;
}

/** Per-invocation limits, e.g. the Lambda's remaining time. */
export interface BatchOptions {
  /** Milliseconds left before the host kills the invocation; unbounded when absent. */
  readonly remainingTimeMs?: () => number;
}

/** What becomes of one message. */
export type Outcome =
  | { readonly kind: 'ack' }
  /**
   * Report failed and make the message visible again `delayMs` after this decision: the
   * change is sent as soon as it is decided where nothing of its group follows it in the
   * batch, so its return time does not wait for the batch's other tasks.
   */
  | {
      readonly kind: 'retry';
      readonly delayMs: number;
      /**
       * Run once the change is sent: a suspension's check for a signal counted while its
       * hold waited to be sent (./wait-end.ts), which a hold sent after the signal's wake
       * would otherwise hide.
       */
      readonly afterHold?: (() => Promise<void>) | undefined;
    }
  /** Report failed and leave the visibility timeout alone (an infrastructure error). */
  | { readonly kind: 'fail' }
  /** Not touched yet: a lease takeover, which waits until the batch's other tasks finish. */
  | { readonly kind: 'takeover' };

export const ACK: Outcome = { kind: 'ack' };

/**
 * After a refused fenced write (the lease was lost): the message goes back at once and is
 * never acknowledged. It is still at the head of its FIFO group, ahead of the message the
 * sweeper sent for the requeued task and of the key's later tasks, so the task's next
 * attempt runs from it, in order; the later copy is dropped as a duplicate once the task
 * has finished (ADR 0007).
 */
export const LEASE_LOST: Outcome = { kind: 'retry', delayMs: 0 };

/** The lease a claim takes: the run's timeout plus grace, capped by the lease duration. */
export function leaseFor(timeoutMs: number, deps: ProcessorDeps): number {
  return Math.min(timeoutMs + deps.leaseGraceMs, deps.leaseDurationMs);
}

/** Audits what this worker did with a task without writing it (e.g. a dropped duplicate). */
export function auditTask(
  deps: ProcessorDeps,
  record: TaskRecord,
  event: AuditEvent,
  detail: string,
  attempt = record.attempt,
): void {
  logAudit(deps.logger, {
    event,
    taskId: record.id,
    taskType: record.type,
    attempt,
    status: record.status,
    workerId: deps.workerId,
    at: deps.clock(),
    detail,
  });
}
