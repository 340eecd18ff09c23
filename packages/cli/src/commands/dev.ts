import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import type { TaskDefinition } from 'tasklane';
import { EnvVars } from 'tasklane';
import { startLocalExecutor } from 'tasklane/local';
import { commandContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';

interface DevOptions {
  tasks: string;
  name?: string;
  log: 'file' | 'console' | 'silent';
}

/** `tasklane dev --tasks <module>`: a local executor running the user's task definitions. */
export function registerDev(program: Command): void {
  program
    .command('dev')
    .description('run a local executor (emulator, worker, scheduler pump, sweeper) with your tasks')
    .requiredOption('--tasks <module>', 'a module exporting task definitions (defineTask results)')
    .option('--name <prefix>', 'resource name prefix (default: tasklane-local-<random>)')
    .option('--log <where>', 'audit log: file (.tasklane/<name>.log), console or silent', 'file')
    .action(async (opts: DevOptions, command: Command) => {
      const { out, options } = commandContext(command);
      const tasks = await loadTasks(opts.tasks);
      const executor = await startLocalExecutor({
        tasks,
        log: opts.log,
        ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
        ...(opts.name === undefined ? {} : { name: opts.name }),
      });
      const { location, endpoint } = executor;
      const env: Record<string, string | undefined> = {
        AWS_ENDPOINT_URL: endpoint,
        [EnvVars.TABLE_NAME]: location.tableName,
        [EnvVars.QUEUE_URL]: location.queueUrl,
        [EnvVars.DLQ_URL]: location.deadLetterQueueUrl,
        [EnvVars.SCHEDULE_GROUP]: location.scheduleGroup,
        [EnvVars.SCHEDULER_ROLE_ARN]: location.schedulerRoleArn,
        [EnvVars.DELAYED_SCHEDULER_ROLE_ARN]: location.delayedSchedulerRoleArn,
        [EnvVars.SCHEDULE_DLQ_ARN]: location.scheduleDeadLetterArn,
      };
      if (out.json)
        out.data({ tasks: tasks.map((t) => t.type), env, logFile: executor.logFile ?? null });
      else {
        out.line(`Local executor running ${tasks.map((t) => t.type).join(', ')}.`);
        out.line('In another shell, point the CLI or your app at it:');
        for (const [k, v] of Object.entries(env))
          if (v !== undefined) out.line(`  export ${k}=${v}`);
        if (executor.logFile !== undefined) out.line(`Audit log: ${executor.logFile}`);
        out.line('Ctrl-C stops it.');
      }
      await new Promise<void>((done) => {
        const stop = () => done();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        executor.failed.addEventListener('abort', stop, { once: true });
      });
      await executor.stop();
      if (executor.failed.aborted) {
        throw new CliError(
          `The local worker stopped: ${String(executor.failed.reason)}`,
          ExitCode.FAILURE,
        );
      }
    });
}

/** True for a value shaped like a `defineTask` result. */
function isTaskDefinition(value: unknown): value is TaskDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { type?: unknown; handler?: unknown };
  return typeof v.type === 'string' && typeof v.handler === 'function';
}

/**
 * Imports the user's module and collects its task definitions: every export that is one,
 * and the members of an exported array (e.g. `export default [sendEmail, resize]`).
 *
 * @throws CliError (usage) when the module cannot be imported or exports none.
 */
async function loadTasks(modulePath: string): Promise<TaskDefinition[]> {
  const url = pathToFileURL(resolve(modulePath)).href;
  let exported: Record<string, unknown>;
  try {
    exported = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    throw new CliError(
      `Cannot import --tasks ${modulePath}: ${(err as Error).message}.`,
      ExitCode.USAGE,
      {
        cause: err,
        hint: 'Give the path of a JavaScript module (or a TypeScript one Node can run) that exports task definitions.',
      },
    );
  }
  const found = new Map<string, TaskDefinition>();
  for (const value of Object.values(exported)) {
    for (const candidate of Array.isArray(value) ? value : [value]) {
      if (isTaskDefinition(candidate)) found.set(candidate.type, candidate);
    }
  }
  if (found.size === 0) {
    throw new CliError(`--tasks ${modulePath} exports no task definitions.`, ExitCode.USAGE, {
      hint: 'Export the results of defineTask (named exports, or an array as the default export).',
    });
  }
  return [...found.values()];
}
