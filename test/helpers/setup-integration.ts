/**
 * setupFiles entry for the `integration` project: runs in each worker before every test file.
 *
 * Points the AWS SDK at the shared emulator and wipes its state so each file starts clean.
 * Emulators without a reset API (LocalStack, MiniStack) are left as they are; tests use
 * uniqueName() for resources so leftovers from other files do not collide.
 */
import { beforeAll, inject } from 'vitest';
import { emulatorEnvironment, resetEmulator } from '../../src/local/emulator.js';

const endpoint = inject('awsEndpoint');
Object.assign(process.env, emulatorEnvironment(endpoint));

beforeAll(async () => {
  await resetEmulator(endpoint);
});
