/**
 * Runs the `tasklane` executable as a child process, as an operator's shell would: the
 * package's bin entry (packages/cli/src/main.ts, bundled once per run by the project's global setup,
 * test/helpers/cli-bundle-setup.ts), with its own environment, stdin not a terminal. One
 * process: a signal reaches the CLI's own handlers, as it would from a shell.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { EnvVars } from '../../src/settings/location.js';
import type { TestExecutor } from './executor.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'packages/cli/src/main.ts');
const TEST_AUDIT_LOG = path.join(tmpdir(), `tasklane-cli-test-audit-${process.pid}.log`);

/**
 * The commands that import modules at run time, which the bundle does not hold: `console`
 * (the console's module, found beside the CLI's) and `dev` (the user's task module, which
 * imports Tasklane's sources). They run from the sources, through tsx, as before the bundle;
 * for `dev` that also gives the user's module and the CLI one copy of each Tasklane module, as
 * in an installed package.
 */
const FROM_SOURCE = new Set(['console', 'dev']);

/** What node runs before the CLI's arguments: the run's bundle, or the sources. */
function entryArgs(args: readonly string[]): string[] {
  return FROM_SOURCE.has(args[0] ?? '') ? ['--import', 'tsx', MAIN] : [inject('cliEntry')];
}

/** What one run of the CLI produced. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The TASKLANE_* variables that point the CLI at a test executor. */
export function executorEnv(executor: TestExecutor): Record<string, string> {
  return {
    [EnvVars.TABLE_NAME]: executor.tableName,
    [EnvVars.QUEUE_URL]: executor.queueUrl,
    [EnvVars.DLQ_URL]: executor.deadLetterQueueUrl,
    [EnvVars.QUEUE_ARN]: executor.queueArn,
    [EnvVars.SCHEDULE_GROUP]: executor.scheduler.scheduleGroup,
    [EnvVars.SCHEDULER_ROLE_ARN]: executor.scheduler.schedulerRoleArn,
    [EnvVars.SCHEDULE_DLQ_ARN]: executor.scheduler.scheduleDeadLetterArn,
  };
}

/**
 * The command line of `tasklane <args>`: node and what it runs (the run's bundle, or the
 * sources), then the CLI's arguments.
 */
export function cliCommand(args: readonly string[]): string[] {
  return [process.execPath, ...entryArgs(args), ...args];
}

/** Starts `command` from the repository root with exactly `env`, stdin not a terminal. */
function spawnFromRoot(command: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  const [file, ...args] = command;
  return spawn(file as string, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Collects what `child` prints until it closes. */
function outputOf(child: ChildProcess): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `tasklane <args>`; the environment is the test's (emulator) plus `env`. */
export function startCli(args: readonly string[], env: Record<string, string> = {}): ChildProcess {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('TASKLANE_')),
  );
  // Operator actions are logged; a test's go to a scratch file, not the home directory.
  return spawnFromRoot(cliCommand(args), {
    ...clean,
    NO_COLOR: '1',
    TASKLANE_AUDIT_LOG: TEST_AUDIT_LOG,
    ...env,
  });
}

/** Runs `tasklane <args>` to its end. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return outputOf(startCli(args, env));
}

/**
 * Runs `command` (`cliCommand(...)`, or an app's script) to its end with exactly `env` and
 * nothing of the test's environment: as a shell that knows only `env` would run it.
 */
export function runWithEnvOnly(
  command: readonly string[],
  env: Record<string, string>,
): Promise<CliRun> {
  return outputOf(spawnFromRoot(command, env));
}
