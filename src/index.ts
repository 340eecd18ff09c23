/**
 * `tasklane`: the SDK (TaskClient, defineTask) and the worker (createWorker, createSweeper).
 * This is the supported API; modules not re-exported here are internal and may change.
 *
 * @module tasklane
 */

export { awsClientConfig } from './aws/clients.js';
export type { BatchEntryResult } from './client/batch.js';
export type { CancelResult, CancelSelection } from './client/cancel-many.js';
export type { CheckReport } from './client/check.js';
export type { CountOptions, TaskCounts } from './client/counts.js';
export type { DeadLetter, DeadLetterStats } from './client/dead-letters.js';
export type { DebounceOptions } from './client/debounce-options.js';
export type { Duration } from './client/duration.js';
export { durationMs } from './client/duration.js';
export type { BatchEntry, EnqueueResult } from './client/enqueue.js';
export type { BatchThen, FanInOptions, FanInResult } from './client/fan-in.js';
export type { GetOptions } from './client/get-result.js';
export type {
  DeadLetterClient,
  LaneDeadLetter,
  LaneDeadLetterStats,
} from './client/lane-dead-letters.js';
export type {
  LanePauseResult,
  LaneState,
  PauseLaneOptions,
  ResumeLaneOptions,
} from './client/lane-pause.js';
export type { StatusPageOptions, TaskListFilter, TaskListPage } from './client/list-tasks.js';
export { UNKNOWN_PRINCIPAL } from './client/operator-principal.js';
export type { TaskClientOptions } from './client/options.js';
export type { ParkedKey, ReleaseKeyOptions, ReleaseKeyResult } from './client/parked-keys.js';
export type { KeyPauseResult } from './client/pause.js';
export type { EnqueueOptions } from './client/prepare.js';
export type { PurgeOptions, PurgeResult } from './client/purge.js';
export type { RedriveOptions, RedriveResult, RedriveSelection } from './client/redrive.js';
export type { ScheduleClient } from './client/schedule-client.js';
export type {
  RecurringScheduleOptions,
  ScheduleDetails,
  ScheduleResult,
  ScheduleSummary,
} from './client/schedules.js';
export type { SignalOptions, SignalResult } from './client/signal.js';
export { TaskClient } from './client/task-client.js';
export type { WaitOptions } from './client/wait.js';
export type { TaskTransition, WatchOptions } from './client/watch.js';
export {
  AuditEvent,
  DebounceMode,
  isTerminal,
  OnDead,
  OnParentDead,
  TaskStatus,
} from './core/constants.js';
export type {
  ConfigurationErrorOptions,
  ConfigurationProblem,
  ValidationIssue,
} from './core/errors.js';
export {
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
  SignalTokenError,
  TaskCancelledError,
  TasklaneError,
  TaskNotFoundError,
  TaskPausedError,
  TaskTimeoutError,
  TransitionRejectedError,
  UnknownTaskTypeError,
  ValidationError,
  WaitTimeoutError,
  WatchGapError,
} from './core/errors.js';
export type {
  DebounceInfo,
  HeldMessage,
  HistoryEntry,
  ObjectRef,
  StepInfo,
  TaskErrorInfo,
  TaskRecord,
  TaskWait,
} from './core/record.js';
export type { LifecycleEvent, TaskEventDetail } from './events/lifecycle-event.js';
export { LifecycleEventType, MAX_EVENT_RESULT_BYTES } from './events/lifecycle-event.js';
export type { EventPublisher } from './events/publisher.js';
export type { WorkerEventOptions } from './events/worker-config.js';
export type { LifecycleHook, LifecycleHooks } from './events/worker-events.js';
export type { IntegrityOptions } from './integrity/integrity-settings.js';
export { INTEGRITY_FAILED, INTEGRITY_KEY_ENV } from './integrity/integrity-settings.js';
export type { MacService } from './integrity/kms-mac.js';
export type { AuditRecord } from './observability/audit.js';
export type { PricedUsage, PriceTable } from './observability/cost.js';
export { DEFAULT_PRICES, priceUsage } from './observability/cost.js';
export type { LogAttributes, TaskLogger } from './observability/logger.js';
export { silentLogger } from './observability/logger.js';
export type { PowertoolsMetricsOptions, TaskMetrics } from './observability/metrics.js';
export {
  MetricName,
  noopMetrics,
  powertoolsMetrics,
  TaskOutcome,
} from './observability/metrics.js';
export type { TracingOption } from './observability/tracing.js';
export type { Usage } from './observability/usage-meter.js';
export type { ScheduleFiring } from './scheduler/firings.js';
export type { LaneLocation, LaneLocations } from './settings/lanes.js';
export {
  DEFAULT_LANE,
  DEFAULT_LANE_CONTROL_PERIOD_MS,
  UnknownLaneError,
} from './settings/lanes.js';
export type { ExecutorLocation } from './settings/location.js';
export { EnvVars } from './settings/location.js';
export type { Retention } from './settings/retention.js';
export type { ExecutorOutputs, StackOutput } from './settings/stack-outputs.js';
export { locationFromStackOutputs } from './settings/stack-outputs.js';
export type { SweeperOptions } from './sweeper/create-sweeper.js';
export { createSweeper } from './sweeper/create-sweeper.js';
export type { SweepReport } from './sweeper/sweeper.js';
export type {
  Continuation,
  DurableContext,
  SignalOutcome,
  WaitForSignalOptions,
} from './tasks/durable.js';
export type { RateLimit, ResolvedRateLimit } from './tasks/rate-limit.js';
export type {
  ParentResult,
  PayloadOf,
  RetryPolicy,
  TaskContext,
  TaskDefinition,
  TaskDefinitionOptions,
  TaskHandler,
} from './tasks/task-definition.js';
export { defineTask } from './tasks/task-definition.js';
export type { PollOptions, Worker, WorkerOptions } from './worker/create-worker.js';
export { createWorker } from './worker/create-worker.js';
export type { BatchOptions as ProcessBatchOptions } from './worker/deps.js';
export type { BatchSummary } from './worker/sqs-poller.js';
