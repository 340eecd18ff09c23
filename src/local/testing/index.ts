/**
 * `tasklane/local/testing`: the pieces `startLocalExecutor` is built from, for a test that
 * needs finer control, e.g. running tasks through a stack deployed into the emulator with
 * local stand-ins for Lambda's event source mapping and EventBridge Scheduler
 * (docs/local-development.md). Lower level than `tasklane/local`.
 *
 * @module tasklane/local/testing
 */
export { onEmulator, resetEmulator } from '../emulator.js';
export { emulatorEnvironment } from '../emulator-env.js';
export type { EventSourceMappingOptions, SqsLambdaHandler } from '../event-source-mapping.js';
export { runEventSourceMapping } from '../event-source-mapping.js';
export type { FileLogger } from '../file-logger.js';
export { jsonLinesLogger } from '../file-logger.js';
export type { ProvisionedExecutor, ProvisionedScheduler } from '../provision.js';
export { provision, provisionScheduleGroup } from '../provision.js';
export type {
  PumpDelivery,
  PumpTick,
  SchedulePump,
  SchedulePumpOptions,
} from '../schedule-pump.js';
export { createSchedulePump } from '../schedule-pump.js';
