/** Merges a partial run's feature rows into the recorded results (bench/cost-scenario.ts). */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FeatureResults } from '../scenarios/features.js';
import type { BenchResults } from './results.js';

/**
 * Merges a partial run's feature rows into docs/benchmarks/results.json: a row of the same id
 * is replaced (the plain one too, so every "vs plain" of the new rows is from one run), a new
 * one appended, and the rows are named as a partial run's in the report.
 */
export async function mergeFeatureRows(root: string, features: FeatureResults): Promise<void> {
  const file = path.join(root, 'docs', 'benchmarks', 'results.json');
  const results = JSON.parse(await readFile(file, 'utf8')) as BenchResults;
  const previous = results.features;
  if (previous !== undefined && previous.tasks !== features.tasks) {
    throw new Error(`the recorded rows are of ${previous.tasks} tasks, these of ${features.tasks}`);
  }
  const fresh = new Map(features.runs.map((run) => [run.id, run]));
  const runs = (previous?.runs ?? []).map((run) => fresh.get(run.id) ?? run);
  for (const run of features.runs) if (!runs.some((r) => r.id === run.id)) runs.push(run);
  const ids = [...new Set([...(previous?.partial?.ids ?? []), ...fresh.keys()])];
  const merged = { tasks: features.tasks, runs, partial: { date: new Date().toISOString(), ids } };
  await writeFile(file, `${JSON.stringify({ ...results, features: merged }, null, 2)}\n`);
  console.log(`merged ${fresh.size} rows into ${path.relative(root, file)}`);
}
