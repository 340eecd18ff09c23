/**
 * Vitest globalSetup for the projects that use the emulator (integration, contract, deploy,
 * faults).
 *
 * Runs in the main vitest process, once per project. It starts one moto per test worker the
 * project may run at once (its maxWorkers; Vitest makes that 1 when `fileParallelism` is false)
 * and hands their endpoints to the workers, which pick theirs by `VITEST_POOL_ID` and point the
 * AWS SDK at it (test/helpers/endpoint.ts, setup-integration.ts). Each file resets its own
 * worker's emulator, so files running side by side never wipe each other. When the user's
 * AWS_ENDPOINT_URL names an emulator, every worker shares it and the projects run their files
 * one at a time (vitest.config.ts).
 *
 * It never changes the main process's environment: the next project's setup would take an
 * endpoint set here for the user's own.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type EmulatorHandle, startEmulator } from '../../src/local/emulator.js';
import { resolveEngine } from '../../src/local/emulator-engine.js';

/** Starts the project's emulators (unless AWS_ENDPOINT_URL names one); returns their teardown. */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = process.env.AWS_ENDPOINT_URL;
  if (shared) {
    project.provide('awsEndpoints', [shared]);
    return async () => {};
  }
  // A project may name its engine in its `env` (the MiniStack projects do); else the
  // run's TASKLANE_EMULATOR, else moto.
  const engine = resolveEngine(undefined, { ...process.env, ...project.config.env });
  const dir = await mkdtemp(path.join(tmpdir(), `tasklane-${engine}-`));
  const start = (n: number) =>
    startEmulator({ engine, log: path.join(dir, `${engine}-${n}.log`), cwd: project.config.root });
  // On a machine without the engine the first start installs it into <root>/.tasklane/venv
  // (or venv-ministack), showing pip's progress, or fails at once saying what to install: it
  // starts alone.
  const first = await start(1);
  const rest = await Promise.all(
    Array.from({ length: workersOf(project) - 1 }, (_, i) => start(i + 2)),
  );
  const emulators: EmulatorHandle[] = [first, ...rest];
  const endpoints = emulators.map((emulator) => emulator.endpoint);
  console.log(
    `[global-setup] ${project.name}: ${engine} at ${endpoints.join(', ')} (logs: ${dir})`,
  );
  project.provide('awsEndpoints', endpoints);
  return async () => {
    await Promise.all(emulators.map((emulator) => emulator.stop()));
  };
}

/**
 * How many files of the project may run at once: its own maxWorkers (Vitest sets it to 1 when
 * `fileParallelism` is false), else the run's.
 */
function workersOf(project: TestProject): number {
  return Math.max(1, project.config.maxWorkers ?? project.vitest.config.maxWorkers ?? 1);
}
