import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import type { TaskDefinition } from 'tasklane';
import { startLocalExecutor } from 'tasklane/local';
import { commandContext } from '../context.js';
import { applyToProcess, envFile, exportLines } from '../dev-environment.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { shellWord } from '../shell.js';

interface DevOptions {
  tasks: string;
  name?: string;
  writeEnv?: string;
  log: 'file' | 'console' | 'silent';
}

/** `tasklane dev --tasks <module>`: a local executor running the user's task definitions. */
export function registerDev(program: Command): void {
  program
    .command('dev')
    .description('run a local executor (emulator, worker, scheduler pump, sweeper) with your tasks')
    .requiredOption('--tasks <module>', 'a module exporting task definitions (defineTask results)')
    .option('--name <prefix>', 'resource name prefix (default: tasklane-local-<random>)')
    .option(
      // Not --env-file: node reads that flag from anywhere in its arguments, ours included.
      '--write-env <path>',
      'where to write the variables another shell sources to use it (default: .tasklane/<name>.env)',
    )
    .option('--log <where>', 'audit log: file (.tasklane/<name>.log), console or silent', 'file')
    .action(async (opts: DevOptions, command: Command) => {
      const { out, options } = commandContext(command);
      const name = opts.name ?? `tasklane-local-${randomBytes(4).toString('hex')}`;
      let loaded: readonly TaskDefinition[] = [];
      const executor = await startLocalExecutor({
        name,
        log: opts.log,
        ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
        // Loaded once the resources exist, in their environment: a module that makes a
        // TaskClient when it loads gets one for this executor.
        tasks: async ({ environment }) => {
          applyToProcess(environment);
          loaded = await loadTasks(opts.tasks);
          return loaded;
        },
      });
      const file = resolve(opts.writeEnv ?? join('.tasklane', `${name}.env`));
      await mkdir(dirname(file), { recursive: true });
      await writeFile(
        file,
        envFile(executor.environment, `tasklane dev: the local executor ${name}`),
        { mode: 0o600 },
      );
      const types = loaded.map((t) => t.type);
      if (out.json) {
        out.data({
          tasks: types,
          env: executor.environment,
          envFile: file,
          logFile: executor.logFile ?? null,
        });
      } else {
        out.line(`Local executor running ${types.join(', ')}.`);
        out.line('In another shell, point the CLI or your app at it:');
        out.line(`  . ${shellWord(file)}`);
        out.line('or set these:');
        for (const line of exportLines(executor.environment)) out.line(`  ${line}`);
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
