/**
 * docs/deploying.md, "Deploying into the emulator": your stack deployed into the local
 * emulator with your app's CDK CLI, then run by a local executor attached to it.
 * Type-checked in CI; in an application, import from 'tasklane/local'.
 */
import { deployToEmulator, startEmulator, startLocalExecutor } from '../src/local/index.js';
import { exampleTasks } from './tasks.js';

const emulator = await startEmulator();
const deployment = await deployToEmulator({ endpoint: emulator.endpoint, stack: 'Orders' });
const executor = await startLocalExecutor({
  endpoint: emulator.endpoint,
  location: deployment.executor,
  tasks: exampleTasks,
});

export { emulator, executor };
