/**
 * No tracer, no cost: a worker and a producer never load `@opentelemetry/api`, though it is
 * installed; in a process with a tracer provider they trace through the app's own copy. Each runs in a process of its own, whose module resolutions a preloaded hook
 * records (test/fixtures/record-opentelemetry-loads.mjs).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { executorEnv } from '../helpers/cli.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** Runs test/fixtures/cold-path-worker.ts against the executor; returns what it printed. */
function runWorkerProcess(env: Record<string, string>) {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      './test/fixtures/record-opentelemetry-loads.mjs',
      '--import',
      'tsx',
      'test/fixtures/cold-path-worker.ts',
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        ...executorEnv(executor),
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        TASKLANE_LOG_LEVEL: 'ERROR',
        ...env,
      },
    },
  );
  if (run.status !== 0) throw new Error(`worker process exited ${run.status}: ${run.stderr}`);
  const last = run.stdout.trim().split('\n').at(-1) ?? '{}';
  return JSON.parse(last) as { status: string; loaded: number; spans: number };
}

describe('tracing without a tracer provider', () => {
  it('never loads @opentelemetry/api in a producer and a worker that run a task', () => {
    const out = runWorkerProcess({});

    expect(out.status).toBe('SUCCEEDED');
    expect(out.loaded).toBe(0);
    expect(out.spans).toBe(0);
  });

  it('traces through the app’s registered provider, still loading none of it itself', () => {
    const out = runWorkerProcess({ TRACED: '1' });

    expect(out.status).toBe('SUCCEEDED');
    expect(out.loaded).toBe(0);
    expect(out.spans).toBeGreaterThanOrEqual(1);
  });
});
