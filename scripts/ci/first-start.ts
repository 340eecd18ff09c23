/**
 * `tsx scripts/ci/first-start.ts <label>`: times one `startLocalExecutor` from nothing to a
 * finished task, and prints `first-start <label> <ms>`. The real-install-path step of CI
 * (scripts/ci/real-install-path.sh) runs it twice with moto hidden from PATH: the first run
 * creates `.tasklane/venv` and installs moto from PyPI, the second reuses it.
 */
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { startLocalExecutor } from '../../src/local/local-executor.js';
import { defineTask } from '../../src/tasks/task-definition.js';

const ping = defineTask('ping', { schema: z.object({}), handler: () => 'pong' });

const label = process.argv[2] ?? 'run';
const started = Date.now();
const executor = await startLocalExecutor({ tasks: [ping], log: 'silent' });
const ready = Date.now() - started;
try {
  await executor.client.enqueue(ping, {}, { id: 'ping' });
  const done = await executor.client.wait('ping', { timeoutMs: 30_000 });
  if (done.status !== TaskStatus.SUCCEEDED) throw new Error(`ping ended ${done.status}`);
} finally {
  await executor.stop();
}
const total = Date.now() - started;
console.log(
  `first-start ${label}: executor ready in ${(ready / 1000).toFixed(1)} s, first task done at ${(total / 1000).toFixed(1)} s (${executor.emulator?.engine ?? 'endpoint'})`,
);
