import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { executorEnv, runCli, startCli } from '../helpers/cli.js';
import { fragileTask, reportTask, SEEDED, seedTasks } from '../helpers/console.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
  await seedTasks(executor.client());
  await executor.drain(executor.worker([reportTask, fragileTask]));
});

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

describe('tasklane console', () => {
  it('serves the console until stopped, read-only with --read-only', async () => {
    // Arrange
    const port = await freePort();
    const child = startCli(
      ['console', '--port', String(port), '--read-only'],
      executorEnv(executor),
    );
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    const exited = once(child, 'close');

    // Act
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${stdout}`)), 30_000);
      child.stdout?.on('data', () => {
        if (stdout.includes('Console at')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const open = /Console at (\S+)/.exec(stdout)?.[1] ?? '';
    const anonymous = await fetch(`http://127.0.0.1:${port}/dead`);
    const login = await fetch(open, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    const dead = await fetch(`http://127.0.0.1:${port}/dead`, { headers: { cookie } });
    const body = await dead.text();
    child.kill('SIGTERM');
    const [code] = await exited;

    // Assert
    expect(open).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/\\?token=[\\w-]{32}$`));
    expect(anonymous.status).toBe(401);
    expect(dead.status).toBe(200);
    expect(body).toContain(`/tasks/${SEEDED.dead}`);
    expect(body).toContain('Read-only: actions are disabled');
    expect(code).toBe(0);
  });

  it('refuses a non-loopback --host without --allow-remote, saying so', async () => {
    // Act
    const run = await runCli(['console', '--host', '0.0.0.0'], executorEnv(executor));

    // Assert
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('pass --allow-remote');
  });

  it('refuses --token, whose secret would show in ps, naming the ways that do not', async () => {
    // Act
    const run = await runCli(
      ['console', '--port', '0', '--token', 'a-long-enough-access-token'],
      executorEnv(executor),
    );

    // Assert
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--token is no longer accepted');
    expect(run.stderr).toContain('TASKLANE_CONSOLE_TOKEN');
    expect(run.stderr).toContain('--token-file');
  });

  it('refuses a --token-file that other users can read', async () => {
    // Arrange
    const dir = await mkdtemp(path.join(tmpdir(), 'tasklane-token-'));
    const file = path.join(dir, 'token');
    await writeFile(file, 'a-long-enough-access-token\n', { mode: 0o644 });

    // Act
    const run = await runCli(
      ['console', '--port', '0', '--token-file', file],
      executorEnv(executor),
    );

    // Assert
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('chmod 600');
  });

  it('draws the charts from the task records with an endpoint, and from CloudWatch when asked', async () => {
    // Act
    const records = await overviewOf([]);
    const cloudwatch = await overviewOf([
      '--charts',
      'cloudwatch',
      '--metrics-service',
      'tasklane-cli-test',
    ]);

    // Assert
    expect(records).toContain('Source: the task records.');
    expect(cloudwatch).toContain('Source: CloudWatch metrics.');
    expect(cloudwatch).toContain(
      'no Tasklane metrics for service &quot;tasklane-cli-test&quot; in the hour',
    );
  });
});

/** Starts `tasklane console` with `args`, signs in, and returns its overview page. */
async function overviewOf(args: readonly string[]): Promise<string> {
  const port = await freePort();
  const child = startCli(['console', '--port', String(port), ...args], executorEnv(executor));
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  const exited = once(child, 'close');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${stdout}`)), 30_000);
    child.stdout?.on('data', () => {
      if (stdout.includes('Console at')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const open = /Console at (\S+)/.exec(stdout)?.[1] ?? '';
  const login = await fetch(open, { redirect: 'manual' });
  const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
  const page = await (await fetch(`http://127.0.0.1:${port}/`, { headers: { cookie } })).text();
  child.kill('SIGTERM');
  await exited;
  return page;
}
