/**
 * `tasklane/local`: the local executor for tests and dev servers, and the emulator pieces it
 * is built from.
 *
 * @module tasklane/local
 */
export type { EmulatorHandle, EmulatorOptions } from './emulator.js';
export {
  EmulatorUnavailableError,
  onEmulator,
  resetEmulator,
  startEmulator,
} from './emulator.js';
export {
  applyEmulatorEnvironment,
  assertLoopbackEndpoint,
  emulatorEnvironment,
  restoreEnvironment,
} from './emulator-env.js';
export type { EmulatorPlan, EmulatorProbe, EmulatorRuntimeOptions } from './emulator-runtime.js';
export { planEmulator, prepareEmulator, probeEmulator } from './emulator-runtime.js';
export type { EventSourceMappingOptions, SqsLambdaHandler } from './event-source-mapping.js';
export { runEventSourceMapping } from './event-source-mapping.js';
export type { FileLogger } from './file-logger.js';
export { jsonLinesLogger } from './file-logger.js';
export type { LocalEventsOption } from './local-events.js';
export type {
  LocalExecutor,
  LocalExecutorLocation,
  LocalExecutorOptions,
} from './local-executor.js';
export { startLocalExecutor } from './local-executor.js';
export type { ProvisionedExecutor, ProvisionedScheduler } from './provision.js';
export { provision, provisionScheduleGroup } from './provision.js';
export type {
  PumpDelivery,
  PumpTick,
  SchedulePump,
  SchedulePumpOptions,
} from './schedule-pump.js';
export { createSchedulePump } from './schedule-pump.js';
