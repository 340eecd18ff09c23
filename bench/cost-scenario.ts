/**
 * `npx tsx bench/cost-scenario.ts [--profile quick|default|full] [--features id,id]`: only
 * the realistic scenario, the feature costs and the AWS-shaped mode of `npm run bench`, for
 * working on them; prints the figures and writes them to `.tasklane/cost-scenario.json`.
 * With `--features`, only those feature rows (and the plain one), printed as BENCHMARKS.md's
 * feature table; with `--write-results` as well, merged into docs/benchmarks/results.json
 * (replacing rows of the same id, marked as a partial run) for `npx tsx bench/report/render.ts`
 * to render, when every check passed. BENCHMARKS.md comes from `npm run bench`, which runs
 * these too.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { selectProfile } from './config.js';
import { Checks } from './lib/checks.js';
import { startBenchEmulator } from './lib/environment.js';
import { featuresSection } from './report/measured-sections.js';
import { mergeFeatureRows } from './report/merge-features.js';
import type { BenchResults } from './report/results.js';
import { runAwsShaped } from './scenarios/aws-shaped.js';
import type { BenchContext } from './scenarios/context.js';
import { FEATURE_SCENARIOS, type FeatureResults, runFeatures } from './scenarios/features.js';
import { runRealistic } from './scenarios/realistic.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SAVED = path.join(ROOT, '.tasklane', 'cost-features.json');
if (process.argv.includes('--merge-saved')) {
  // The rows a `--features` run saved, merged without measuring again (when all checks passed).
  const saved = JSON.parse(await readFile(SAVED, 'utf8')) as FeatureResults & {
    checks: { name: string; ok: boolean }[];
  };
  // Only the rows whose own checks (named `feature-<id>: …`) all passed.
  const failed = new Set(
    saved.checks.filter((c) => !c.ok).map((c) => c.name.replace(/^feature-([^:]+):.*$/, '$1')),
  );
  for (const id of failed) console.error(`not merged: ${id} (a check failed)`);
  const runs = saved.runs.filter((run) => !failed.has(run.id));
  await mergeFeatureRows(ROOT, { tasks: saved.tasks, runs });
  process.exit(0);
}
const profile = selectProfile(process.argv.slice(2), process.env);
const emulator = await startBenchEmulator();
const admin = { sqs: new SQSClient({}), dynamodb: new DynamoDBClient({}) };
const checks = new Checks();
const started = Date.now();
const ctx: BenchContext = {
  profile,
  admin,
  consumers: { tasklane: '', raw: '', powertools: '' },
  workDir: '',
  checks,
  log: (m) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}`),
};
const only = process.argv.indexOf('--features');
const featureIds = only >= 0 ? (process.argv[only + 1] ?? '').split(',') : undefined;
try {
  if (featureIds !== undefined) {
    const scenarios = FEATURE_SCENARIOS.filter(
      (s) => s.id === 'plain' || featureIds.includes(s.id),
    );
    const features = await runFeatures(ctx, scenarios);
    console.log(featuresSection({ features } as BenchResults));
    const output = SAVED;
    await mkdir(path.dirname(output), { recursive: true });
    await writeFile(output, `${JSON.stringify({ ...features, checks: checks.all }, null, 2)}\n`);
    // A scenario that did not finish, or whose runs timed out or failed, counted something
    // else than its row says: its figures must not be copied into BENCHMARKS.md.
    for (const failure of checks.failed)
      console.error(`check failed: ${failure.name}: ${failure.detail}`);
    if (checks.failed.length === 0 && process.argv.includes('--write-results')) {
      await mergeFeatureRows(ROOT, features);
    }
    process.exit(checks.failed.length === 0 ? 0 : 1);
  }
  const realistic = await runRealistic(ctx);
  const features = await runFeatures(ctx);
  const awsShaped = await runAwsShaped(ctx);
  const output = path.join(ROOT, '.tasklane', 'cost-scenario.json');
  await mkdir(path.dirname(output), { recursive: true });
  const all = { realistic, features, awsShaped, checks: checks.all };
  await writeFile(output, `${JSON.stringify(all, null, 2)}\n`);
  for (const failure of checks.failed)
    console.error(`check failed: ${failure.name}: ${failure.detail}`);
  console.log(`wrote ${path.relative(ROOT, output)}`);
  process.exitCode = checks.failed.length === 0 ? 0 : 1;
} finally {
  admin.sqs.destroy();
  admin.dynamodb.destroy();
  await emulator.stop();
}
