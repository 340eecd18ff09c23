/**
 * setupFiles entry for the `integration` project: runs in each worker before every test file.
 *
 * Points the AWS SDK at the shared emulator and wipes its state so each file starts clean.
 * Emulators without a reset API (LocalStack, MiniStack) are left as they are; tests use
 * uniqueName() for resources so leftovers from other files do not collide.
 */
import { beforeAll, inject } from 'vitest';
import { resetEmulator } from '../../src/local/emulator.js';
import { applyEmulatorEnvironment } from '../../src/local/emulator-env.js';

const endpoint = inject('awsEndpoint');
applyEmulatorEnvironment(endpoint);

beforeAll(async () => {
  await resetEmulator(endpoint);
});
