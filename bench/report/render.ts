/**
 * Renders BENCHMARKS.md (and its chart) and docs/capacity.md again from
 * docs/benchmarks/results.json, without running the benchmarks: `npx tsx bench/report/render.ts`.
 * For changes to the templates or the report code; the figures stay those of the recorded run.
 * With `--capacity` (`npm run bench:capacity`) it writes docs/capacity.md only.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResults } from './results.js';
import { writeCapacity, writeReport } from './write.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const data = path.join(root, 'docs', 'benchmarks', 'results.json');
const results = JSON.parse(await readFile(data, 'utf8')) as BenchResults;
const output = path.join(root, 'BENCHMARKS.md');
if (process.argv.includes('--capacity')) {
  const file = await writeCapacity(output, results);
  console.log(
    `Rendered ${path.relative(root, file)} from ${path.relative(root, data)} (run of ${results.date}).`,
  );
} else {
  await writeReport(output, results);
  console.log(
    `Rendered BENCHMARKS.md and docs/capacity.md from ${path.relative(root, data)} (run of ${results.date}).`,
  );
}
