/** Shared by the durable-task integration tests: a polling worker for a few task types. */
import type { TaskDefinition } from '../../src/tasks/task-definition.js';
import type { WorkerOptions } from '../../src/worker/create-worker.js';
import type { TestExecutor } from './executor.js';

/** Polls the executor's queue with a worker for `tasks`; returns what stops it. */
export function startWorker(
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
