/**
 * `tasklane/cdk`: the TaskExecutor construct, for AWS CDK apps. Needs `aws-cdk-lib` and
 * `constructs` (optional peer dependencies of the package) and, to bundle the worker,
 * `esbuild` in the app.
 */

export type { PriceTable } from '../observability/cost.js';
export type { LaneProps } from '../settings/lanes.js';
export { type CostSource, costWidget } from './cost-widget.js';
export type {
  ExecutorMonitoringProps,
  LaneAlarms,
  MonitoredExecutor,
} from './monitoring.js';
export { ExecutorMonitoring } from './monitoring.js';
export type { NagAcknowledgement } from './nag-acknowledgements.js';
export type { PayloadBucketOptions, PayloadBucketProp } from './payload-bucket.js';
export type { ConnectProducerOptions, ProducerTarget } from './producer-wiring.js';
export type { LaneQueuePair } from './queue-props.js';
export type { ExecutorSchedulingProps } from './scheduling.js';
export { ExecutorScheduling } from './scheduling.js';
export type { TaskExecutorProps } from './task-executor.js';
export { TaskExecutor } from './task-executor.js';
