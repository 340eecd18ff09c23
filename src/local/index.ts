/**
 * `tasklane/local`: the local executor for tests and dev servers, and the emulator pieces it
 * is built from.
 *
 * @module tasklane/local
 */
export type { EmulatorHandle, EmulatorOptions } from './emulator.js';
export {
  EmulatorUnavailableError,
  emulatorEnvironment,
  onEmulator,
  resetEmulator,
  startEmulator,
} from './emulator.js';
export type { EventSourceMappingOptions, SqsLambdaHandler } from './event-source-mapping.js';
export { runEventSourceMapping } from './event-source-mapping.js';
export type { ProvisionedExecutor, ProvisionedScheduler } from './provision.js';
export { provision, provisionScheduleGroup } from './provision.js';
export type {
  PumpDelivery,
  PumpTick,
  SchedulePump,
  SchedulePumpOptions,
} from './schedule-pump.js';
export { createSchedulePump } from './schedule-pump.js';
