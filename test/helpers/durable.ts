/**
 * Shared by the durable-task integration tests: the worker harness under the name they read
 * it by. Call `useDurableExecutor()` at the top of a test file; `executor` is a live binding.
 */
export {
  executor,
  runWorker,
  stopWorker,
  useWorkerHarness as useDurableExecutor,
} from './worker-harness.js';
