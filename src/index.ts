/**
 * `tasklane`: the SDK (TaskClient, defineTask) and the worker (createWorker, createSweeper).
 *
 * @module tasklane
 */
export type { Arrangement } from './client/delayed.js';
export { DelayedTasks } from './client/delayed.js';
export type { EnqueueOptions } from './client/prepare.js';
export type { RedriveResult, RedriveSelection } from './client/redrive.js';
export type {
  RecurringScheduleOptions,
  ScheduleDetails,
  ScheduleResult,
  ScheduleSummary,
} from './client/schedules.js';
export type {
  BatchEntry,
  BatchEntryResult,
  EnqueueResult,
  TaskClientOptions,
  WaitOptions,
} from './client/task-client.js';
export { TaskClient } from './client/task-client.js';
export type {
  ExecutorLocation,
  ExecutorOutputs,
  SchedulerLocation,
  StackOutput,
} from './config.js';
export {
  EnvVars,
  locationFromStackOutputs,
  resolveLocation,
  resolveSchedulerLocation,
  StackOutputSuffix,
} from './config.js';
export { AuditEvent, Defaults, isTerminal, TaskStatus, TERMINAL_STATUSES } from './constants.js';
export type { ValidationIssue } from './errors.js';
export {
  ConfigurationError,
  ErrorCode,
  IdempotencyConflictError,
  LeaseLostError,
  PayloadTooLargeError,
  PermanentError,
  ScheduleFailedError,
  ScheduleNotFoundError,
  TasklaneError,
  TaskNotFoundError,
  TaskTimeoutError,
  TransitionRejectedError,
  UnknownTaskTypeError,
  ValidationError,
  WaitTimeoutError,
} from './errors.js';
export type { FiringEnvelope } from './message.js';
export type { AuditRecord } from './observability/audit.js';
export type { LogAttributes, TaskLogger } from './observability/logger.js';
export { defaultLogger, silentLogger } from './observability/logger.js';
export type { PowertoolsMetricsOptions, TaskMetrics } from './observability/metrics.js';
export {
  METRICS_NAMESPACE,
  MetricName,
  noopMetrics,
  powertoolsMetrics,
  TaskOutcome,
} from './observability/metrics.js';
export type { ExecutorSettings, ExecutorSettingsProps, QueueSettings } from './resources.js';
export { executorSettings } from './resources.js';
export type { ExpressionParse, ScheduleExpression } from './scheduler/expression.js';
export { parseScheduleExpression, timezoneProblem } from './scheduler/expression.js';
export { delayedScheduleName, firingTaskId } from './scheduler/names.js';
export type { ScheduleTiming } from './scheduler/occurrences.js';
export { occurrences } from './scheduler/occurrences.js';
export type { HistoryEntry, TaskErrorInfo, TaskRecord } from './store/record.js';
export type { Retention } from './store/retention.js';
export type { Lease, TaskPage, TaskStoreOptions } from './store/task-store.js';
export { TaskStore } from './store/task-store.js';
export type { SweeperOptions } from './sweeper/create-sweeper.js';
export { createSweeper } from './sweeper/create-sweeper.js';
export type { SweepReport } from './sweeper/sweeper.js';
export type { PollOptions, Worker, WorkerOptions } from './worker/create-worker.js';
export { createWorker } from './worker/create-worker.js';
export type { BatchSummary, PollQueueOptions, SqsEventHandler } from './worker/sqs-poller.js';
export { interpretBatchResponse, pollQueue, toSqsRecord } from './worker/sqs-poller.js';
export type {
  PayloadOf,
  RetryPolicy,
  TaskContext,
  TaskDefinition,
  TaskDefinitionOptions,
  TaskHandler,
} from './worker/task-definition.js';
export { defineTask } from './worker/task-definition.js';
