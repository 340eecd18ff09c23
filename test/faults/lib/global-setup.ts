/**
 * Vitest globalSetup of the fault suite (after test/helpers/global-setup.ts has started the
 * emulator): draws the master seed, bundles the worker and producer child processes, and at the end writes
 * docs/reliability/results.json and RELIABILITY.md from the results the scenario files left
 * behind.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { masterSeed } from './random.js';
import {
  mergeResults,
  RELIABILITY_DATA,
  readReliabilityData,
  writeReliability,
} from './reliability-doc.js';
import { loadResults } from './report.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let run: { seed: number; resultsDir: string; started: number } | undefined;

export async function setup(project: TestProject): Promise<void> {
  const seed = masterSeed();
  const resultsDir = await mkdtemp(path.join(tmpdir(), 'tasklane-faults-'));
  // Bundled once: a worker process then starts in ~0.3 s instead of ~1.3 s through tsx,
  // which matters when a scenario restarts workers 50 times on two cores. It lives under
  // node_modules so that its package imports resolve.
  const cache = path.join(ROOT, 'node_modules', '.cache', 'tasklane-faults');
  await mkdir(cache, { recursive: true });
  // One bundle per checkout: node_modules may be shared by several checkouts of the project.
  const checkout = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
  const workerScript = path.join(cache, `worker-process-${checkout}.mjs`);
  const producerScript = path.join(cache, `producer-process-${checkout}.mjs`);
  const bundle = (entry: string, outfile: string) =>
    build({
      entryPoints: [path.join(ROOT, 'test', 'faults', entry)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      packages: 'external',
      logLevel: 'warning',
    });
  await Promise.all([
    bundle('worker-process.ts', workerScript),
    bundle('producer-process.ts', producerScript),
  ]);
  console.log(`[faults] FAULT_SEED=${seed} (replay: FAULT_SEED=${seed} npm run test:faults)`);
  console.log(`[faults] results and logs in ${resultsDir}`);
  project.provide('faultSeed', seed);
  project.provide('faultResultsDir', resultsDir);
  project.provide('faultWorkerScript', workerScript);
  project.provide('faultProducerScript', producerScript);
  run = { seed, resultsDir, started: Date.now() };
}

export async function teardown(): Promise<void> {
  if (run === undefined) return;
  const fresh = await loadResults(run.resultsDir);
  if (fresh.length === 0) return;
  const previous = await readReliabilityData(path.join(ROOT, RELIABILITY_DATA));
  const data = mergeResults(previous, fresh, {
    masterSeed: run.seed,
    date: new Date().toISOString(),
    wallMs: Date.now() - run.started,
    scenarios: fresh.length,
  });
  await writeReliability(ROOT, data);
  console.log(`[faults] wrote RELIABILITY.md and ${RELIABILITY_DATA} (FAULT_SEED=${run.seed})`);
}
