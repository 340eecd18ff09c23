/**
 * `tasklane tail` reads the table's stream (docs/adr/0049-watch-reads-the-table-stream.md):
 * every transition of every task, once, in order per task, as JSON lines; `--id` waits for a
 * task about to be enqueued, and exits 4 for one that never comes.
 */
import type { ChildProcess } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTask } from '../../src/tasks/task-definition.js';
import { executorEnv, runCli, startCli } from '../helpers/cli.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const quick = defineTask('quick', { schema: z.object({ n: z.number() }), handler: () => 'done' });

let executor: TestExecutor;
let env: Record<string, string>;

beforeEach(async () => {
  executor = await setupExecutor();
  env = executorEnv(executor);
});

/** A running `tasklane tail`, its output as it comes, and its exit. */
function tail(args: readonly string[]) {
  const child: ChildProcess = startCli(['tail', ...args], env);
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk) => {
    out.stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    out.stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines = () =>
    out.stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { taskId: string; event: string; status: string });
  return { child, out, exited, lines };
}

/** Resolves once `done()` holds, checking every 50 ms; throws after `ms`. */
async function until(done: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('tasklane tail', () => {
  it('prints every transition of 200 tasks that each finish in milliseconds, once and in order per task', async () => {
    const run = tail(['--json']);
    await until(() => run.out.stderr.includes('Following every task'), 30_000, 'tail started');
    const client = executor.client();

    const results = await client.enqueueBatch(
      Array.from({ length: 200 }, (_, n) => ({ task: quick, payload: { n } })),
    );
    const started = Date.now();
    await executor.drain(executor.worker([quick]));
    const drained = Date.now();
    await until(() => run.lines().length >= 600, 60_000, '600 lines');
    const caughtUp = Date.now();
    run.child.kill('SIGINT');
    const code = await run.exited;

    const byTask = new Map<string, string[]>();
    for (const t of run.lines()) byTask.set(t.taskId, [...(byTask.get(t.taskId) ?? []), t.event]);
    const ids = results.map((r) => (r.ok ? r.id : ''));
    expect(code).toBe(0);
    expect(run.lines()).toHaveLength(600);
    expect([...byTask.keys()].sort()).toEqual([...ids].sort());
    for (const id of ids) expect(byTask.get(id)).toEqual(['submitted', 'claimed', 'succeeded']);
    console.log(
      `[tail] 200 tasks, ${run.lines().length} lines; worker drained in ${drained - started} ms, ` +
        `tail caught up ${caughtUp - drained} ms later`,
    );
  }, 240_000);

  it('--id waits for a task enqueued after it started and prints it from its first transition', async () => {
    const run = tail(['--id', 'late-order', '--json', '--interval', '100']);
    await until(() => run.out.stderr.includes('Following task late-order'), 30_000, 'started');

    await executor.client().enqueue(quick, { n: 1 }, { id: 'late-order' });
    await executor.drain(executor.worker([quick]));
    const code = await run.exited;

    expect(code).toBe(0);
    expect(run.lines().map((t) => t.event)).toEqual(['submitted', 'claimed', 'succeeded']);
  });

  it('--id exits 4 for a task that does not appear within --wait', async () => {
    const result = await runCli(
      ['tail', '--id', 'no-such-task', '--wait', '1s', '--interval', '100'],
      env,
    );

    expect(result.code).toBe(4);
    expect(result.stderr).toContain("No task has id 'no-such-task'");
    expect(result.stdout).toBe('');
  });

  it('refuses a --wait that is not a duration, with exit 2', async () => {
    const result = await runCli(['tail', '--id', 'x', '--wait', 'soon'], env);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--wait');
  });
});
