/**
 * `tasklane dev` hands its executor to other shells (issue 27, item 5): the env file it writes
 * and the exports it prints work in a shell with nothing else set, and a task module that makes
 * its TaskClient when it loads gets one for the local executor.
 */
import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskClient } from '../../src/client/task-client.js';
import { TaskStatus } from '../../src/core/constants.js';
import { silentLogger } from '../../src/observability/logger.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { type CliRun, cliCommand, runWithEnvOnly, startCli } from '../helpers/cli.js';

/** The fixture's `chain`, as a producer that does not load the module knows it. */
const chain = defineTask('chain', { schema: z.object({ n: z.number() }), handler: () => {} });

let dev: ReturnType<typeof startCli> | undefined;

afterEach(async () => {
  if (dev !== undefined && dev.exitCode === null) {
    dev.kill('SIGINT');
    await once(dev, 'close');
  }
  dev = undefined;
});

/**
 * Starts `tasklane dev` and resolves with what it printed once it runs; rejects with its
 * stderr if it ends first.
 */
async function startDev(args: readonly string[], until: (stdout: string) => boolean) {
  const child = startCli(['dev', '--log', 'silent', ...args]);
  dev = child;
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      if (until(stdout)) resolve(stdout);
    });
    child.on('close', (code) =>
      reject(new Error(`tasklane dev ended (${code}) before it ran:\n${stdout}\n${stderr}`)),
    );
  });
}

/**
 * Runs `script`, then `command`, in sh with only PATH and HOME set: a shell that knows
 * nothing of the emulator but what `script` tells it.
 */
async function inCleanShell(script: string, command: readonly string[]): Promise<CliRun> {
  const home = await mkdtemp(path.join(tmpdir(), 'tasklane-clean-home-'));
  const setup = path.join(home, 'setup.sh');
  await writeFile(setup, script);
  return runWithEnvOnly(
    ['/bin/sh', '-c', '. "$1" && shift && exec "$@"', 'sh', setup, ...command],
    {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
    },
  );
}

/** `tasklane status --json`, as the clean shell runs it. */
const STATUS = cliCommand(['status', '--json']);
/** An app's producer that enqueues `greet` and waits for it, as the clean shell runs it. */
const PRODUCER = [process.execPath, '--import', 'tsx', 'test/fixtures/cli-dev-producer.ts'];

describe('tasklane dev', () => {
  it('writes an env file that a bare shell sources to use the executor', async () => {
    // Arrange
    const envFile = path.join(await mkdtemp(path.join(tmpdir(), 'tasklane-env-')), 'dev.env');
    const printed = await startDev(
      ['--tasks', 'test/fixtures/cli-dev-tasks.ts', '--write-env', envFile, '--json'],
      (out) => out.trim().endsWith('}'),
    );

    // Act
    const produced = await inCleanShell(await readFile(envFile, 'utf8'), PRODUCER);

    // Assert
    expect(JSON.parse(printed)).toMatchObject({ tasks: ['greet'], envFile });
    expect(produced).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(produced.stdout)).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      result: 'hello clean shell',
    });
  });

  it('prints exports that work in a bare shell: endpoint, region, credentials and location', async () => {
    // Arrange
    const printed = await startDev(['--tasks', 'test/fixtures/cli-dev-tasks.ts'], (out) =>
      out.includes('Ctrl-C stops it.'),
    );
    const exports = printed
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('export '));

    // Act
    const script = `${exports.join('\n')}\n`;
    const produced = await inCleanShell(script, PRODUCER);
    const status = await inCleanShell(script, STATUS);

    // Assert
    expect(exports.map((line) => line.split('=')[0])).toEqual(
      expect.arrayContaining([
        'export AWS_ENDPOINT_URL',
        'export AWS_REGION',
        'export AWS_ACCESS_KEY_ID',
        'export AWS_SECRET_ACCESS_KEY',
        'export TASKLANE_TABLE_NAME',
        'export TASKLANE_QUEUE_URL',
        'export TASKLANE_DELAYED_SCHEDULE_GROUP',
      ]),
    );
    expect(produced).toMatchObject({ code: 0, stderr: '' });
    const { id } = JSON.parse(produced.stdout);
    expect(JSON.parse(produced.stdout)).toMatchObject({ status: TaskStatus.SUCCEEDED });
    expect(status).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(status.stdout).counts.byStatus).toMatchObject({ SUCCEEDED: 1 });
    expect(id).toEqual(expect.any(String));
  });

  it('loads a task module that makes its TaskClient at load time, which enqueues on the executor', async () => {
    // Arrange
    const printed = await startDev(
      ['--tasks', 'test/fixtures/cli-dev-client-tasks.ts', '--json'],
      (out) => out.trim().endsWith('}'),
    );
    const { env, tasks } = JSON.parse(printed);
    const client = new TaskClient({
      tableName: env.TASKLANE_TABLE_NAME,
      queueUrl: env.TASKLANE_QUEUE_URL,
      logger: silentLogger,
    });

    // Act
    const { id } = await client.enqueue(chain, { n: 1 });
    const first = await client.wait(id, { timeoutMs: 30_000 });
    const next = await client.wait(`${id}-next`, { timeoutMs: 30_000 });

    // Assert
    expect(tasks.sort()).toEqual(['chain', 'follow']);
    expect(first).toMatchObject({
      status: TaskStatus.SUCCEEDED,
      result: { n: 1, next: `${id}-next` },
    });
    expect(next).toMatchObject({ status: TaskStatus.SUCCEEDED, result: `followed ${id}` });
  });
});
