export type { EnqueueOptions } from './client/prepare.js';
export type {
  BatchEntry,
  BatchEntryResult,
  EnqueueResult,
  TaskClientOptions,
  WaitOptions,
} from './client/task-client.js';
export { TaskClient } from './client/task-client.js';
export type { ExecutorLocation, ExecutorOutputs, StackOutput } from './config.js';
export { EnvVars, locationFromStackOutputs, resolveLocation, StackOutputSuffix } from './config.js';
export { AuditEvent, Defaults, isTerminal, TaskStatus, TERMINAL_STATUSES } from './constants.js';
export type { ValidationIssue } from './errors.js';
export {
  ConfigurationError,
  ErrorCode,
  IdempotencyConflictError,
  LeaseLostError,
  PayloadTooLargeError,
  PermanentError,
  TasklaneError,
  TaskNotFoundError,
  TaskTimeoutError,
  TransitionRejectedError,
  UnknownTaskTypeError,
  ValidationError,
  WaitTimeoutError,
} from './errors.js';
export type { AuditRecord } from './observability/audit.js';
export type { LogAttributes, TaskLogger } from './observability/logger.js';
export { defaultLogger, silentLogger } from './observability/logger.js';
export type { ExecutorSettings, ExecutorSettingsProps, QueueSettings } from './resources.js';
export { executorSettings } from './resources.js';
export type { HistoryEntry, TaskErrorInfo, TaskRecord } from './store/record.js';
export type { Lease, TaskPage, TaskStoreOptions } from './store/task-store.js';
export { TaskStore } from './store/task-store.js';
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
