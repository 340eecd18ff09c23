/**
 * `tasklane/local`: a whole executor on a local emulator, for tests and dev servers
 * (docs/local-development.md). `startLocalExecutor` is the door; `startEmulator` starts the
 * emulator alone, and `deployToEmulator` deploys an app's stack into it, for
 * `startLocalExecutor({ location })` to run. The pieces the local executor is built from
 * (the event source mapping, the schedule pump, provisioning) are in `tasklane/local/testing`.
 *
 * @module tasklane/local
 */
export type { EmulatorDeployment, EmulatorDeployOptions } from './deploy.js';
export { deployToEmulator } from './deploy.js';
export type { EmulatorHandle, EmulatorOptions } from './emulator.js';
export { EmulatorUnavailableError, startEmulator } from './emulator.js';
export { EMULATOR_CLEARED_VARIABLES } from './emulator-env.js';
export type { LocalEventsOption } from './local-events.js';
export type {
  LocalExecutor,
  LocalExecutorLocation,
  LocalExecutorOptions,
  LocalTasksLoader,
} from './local-executor.js';
export { startLocalExecutor } from './local-executor.js';
