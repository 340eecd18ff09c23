/**
 * Shared by the integration tests that run a polling worker: the file's executor, and a worker
 * for a few task types that stops when the test ends.
 *
 * Call `useWorkerHarness()` at the top of a test file. Its beforeAll sets `executor`, which
 * importers read as a live binding; each test file gets its own instance of this module.
 */
import { afterEach, beforeAll } from 'vitest';
import type { TaskDefinition } from '../../src/tasks/task-definition.js';
import type { WorkerOptions } from '../../src/worker/create-worker.js';
import { setupExecutor, type TestExecutor } from './executor.js';

/** The file's executor, set by `useWorkerHarness`'s beforeAll. */
export let executor: TestExecutor;
/** Stops the worker `runWorker` started; undefined when none runs. */
let stopRunning: (() => Promise<void>) | undefined;

/** Sets up the file's executor, and stops the worker a test started when the test ends. */
export function useWorkerHarness(): void {
  beforeAll(async () => {
    executor = await setupExecutor();
  });

  afterEach(stopWorker);
}

/** Polls the file's executor with a worker for `tasks` until the test ends (or `stopWorker`). */
export function runWorker(
  tasks: TaskDefinition | readonly TaskDefinition[],
  options: Partial<WorkerOptions> = {},
): void {
  stopRunning = startWorker(executor, tasks, options);
}

/** Stops the worker `runWorker` started, if one runs. */
export async function stopWorker(): Promise<void> {
  const stop = stopRunning;
  stopRunning = undefined;
  await stop?.();
}

/** Polls the executor's queue with a worker for `tasks`; returns what stops it. */
function startWorker(
  executor: TestExecutor,
  tasks: TaskDefinition | readonly TaskDefinition[],
  options: Partial<WorkerOptions> = {},
): () => Promise<void> {
  const controller = new AbortController();
  const list = Array.isArray(tasks) ? tasks : [tasks as TaskDefinition];
  const done = executor.worker(list, options).poll({
    signal: controller.signal,
    waitTimeSeconds: 1,
  });
  return async () => {
    controller.abort();
    await done;
  };
}
