/**
 * setupFiles entry for the projects on the emulator: runs in each worker before every test file.
 *
 * Points the AWS SDK at this worker's emulator (test/helpers/endpoint.ts) and wipes its state
 * so each file starts clean. Emulators without a reset API (LocalStack, MiniStack) are left as
 * they are; tests use uniqueName() for resources so leftovers from other files do not collide.
 */
import { beforeAll } from 'vitest';
import { resetEmulator } from '../../src/local/emulator.js';
import { applyEmulatorEnvironment } from '../../src/local/emulator-env.js';
import { emulatorEndpoint } from './endpoint.js';

const endpoint = emulatorEndpoint();
applyEmulatorEnvironment(endpoint);

beforeAll(async () => {
  await resetEmulator(endpoint);
});
