/**
 * Renders BENCHMARKS.md (and its chart) again from docs/benchmarks/results.json, without
 * running the benchmarks: `npx tsx bench/report/render.ts`. For changes to the templates or
 * the report code; the figures stay those of the recorded run.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResults } from './results.js';
import { writeReport } from './write.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const data = path.join(root, 'docs', 'benchmarks', 'results.json');
const results = JSON.parse(await readFile(data, 'utf8')) as BenchResults;
await writeReport(path.join(root, 'BENCHMARKS.md'), results);
console.log(`Rendered BENCHMARKS.md from ${path.relative(root, data)} (run of ${results.date}).`);
