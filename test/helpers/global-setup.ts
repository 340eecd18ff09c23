/**
 * Vitest globalSetup for the `integration` project: one emulator per `vitest` run.
 *
 * Runs in the main vitest process, so it starts moto at most once no matter how many
 * integration files there are; files share it and reset state between themselves.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  type EmulatorHandle,
  emulatorEnvironment,
  startEmulator,
} from '../../src/local/emulator.js';

let emulator: EmulatorHandle | undefined;
const previousEnv: Record<string, string | undefined> = {};

/** Starts moto (unless AWS_ENDPOINT_URL already names an emulator) and publishes its endpoint. */
export async function setup(project: TestProject): Promise<void> {
  let endpoint = process.env.AWS_ENDPOINT_URL;
  if (!endpoint) {
    const dir = await mkdtemp(path.join(tmpdir(), 'tasklane-moto-'));
    const log = path.join(dir, 'moto.log');
    // On a machine without moto this first installs it into <root>/.tasklane/venv, showing
    // pip's progress, or fails at once saying what to install.
    emulator = await startEmulator({ log, cwd: project.config.root });
    endpoint = emulator.endpoint;
    console.log(`[global-setup] moto_server at ${endpoint} (log: ${log})`);
  }

  // Workers inherit the main process env; provide() covers runners that do not.
  for (const [key, value] of Object.entries(emulatorEnvironment(endpoint))) {
    previousEnv[key] = process.env[key];
    process.env[key] = value;
  }
  project.provide('awsEndpoint', endpoint);
}

/** Stops the emulator this setup started (never one it merely reused) and restores env. */
export async function teardown(): Promise<void> {
  await emulator?.stop();
  emulator = undefined;
  for (const [key, value] of Object.entries(previousEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}
