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
export type { ProvisionedExecutor } from './provision.js';
export { provision, provisionScheduleGroup } from './provision.js';
