/**
 * `npm run bench`: measures Tasklane against baselines in one run and writes BENCHMARKS.md.
 *
 * Starts its own moto (unless AWS_ENDPOINT_URL names an emulator), provisions fresh
 * resources for every measurement, and stops everything at the end. Times never gate the
 * run; the correctness checks do (exit 1 when one fails). `--profile quick|default|full`
 * picks the sizes (see bench/config.ts); `--from results.json` rewrites the report only.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { selectProfile } from './config.js';
import type { ConsumerKind } from './consumers/protocol.js';
import { bundle } from './lib/bundle.js';
import { Checks } from './lib/checks.js';
import { startBenchEmulator } from './lib/environment.js';
import { machineFacts } from './lib/machine.js';
import type { BenchResults } from './report/results.js';
import { writeReport } from './report/write.js';
import { runAwsShaped } from './scenarios/aws-shaped.js';
import type { BenchContext } from './scenarios/context.js';
import { runFeatures } from './scenarios/features.js';
import { runPackage } from './scenarios/package.js';
import { runRateLimits } from './scenarios/rate-limits.js';
import { runRealistic } from './scenarios/realistic.js';
import { runRetries } from './scenarios/retries.js';
import { runSingleEnqueue } from './scenarios/single-enqueue.js';
import { runThroughput } from './scenarios/throughput.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `--from results.json`: rewrites the report from saved results, measuring nothing. */
async function rewrite(file: string): Promise<number> {
  const results = JSON.parse(await readFile(file, 'utf8')) as BenchResults;
  const output = path.join(ROOT, results.profile.output);
  await writeReport(output, results);
  console.log(`wrote ${path.relative(ROOT, output)} from ${file}`);
  return 0;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const from = argv.indexOf('--from');
  if (from >= 0 && argv[from + 1] !== undefined) return rewrite(argv[from + 1] as string);
  const profile = selectProfile(argv, process.env);
  const started = Date.now();
  const loadStart = loadavg()[0] ?? 0;
  const log = (message: string) => {
    const elapsed = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
    console.log(`[${elapsed} s] ${message}`);
  };
  log(`profile ${profile.name}: sizes ${profile.sizes.join('/')}, ${profile.reps} repetitions`);
  const workDir = await mkdtemp(path.join(tmpdir(), 'tasklane-bench-work-'));
  const emulator = await startBenchEmulator();
  log(`emulator ${emulator.endpoint}${emulator.started ? ` (moto, log ${emulator.log})` : ''}`);
  const admin = { sqs: new SQSClient({}), dynamodb: new DynamoDBClient({}) };
  try {
    const consumers = {} as Record<ConsumerKind, string>;
    for (const kind of ['tasklane', 'raw', 'powertools'] as const) {
      const entry = path.join(ROOT, 'bench', 'consumers', `${kind}.ts`);
      consumers[kind] = (
        await bundle(entry, path.join(workDir, `consumer-${kind}`), { minify: false })
      ).outfile;
    }
    const checks = new Checks();
    const ctx: BenchContext = { profile, admin, consumers, workDir, checks, log };
    const pkg = await runPackage(ctx);
    const single = await runSingleEnqueue(ctx);
    const retries = await runRetries(ctx);
    const throughput = await runThroughput(ctx);
    const realistic = await runRealistic(ctx);
    const features = await runFeatures(ctx);
    const awsShaped = await runAwsShaped(ctx);
    const rateLimits = await runRateLimits(ctx);
    const wallMs = Date.now() - started;
    const output = path.join(ROOT, profile.output);
    await mkdir(path.dirname(output), { recursive: true });
    await writeReport(output, {
      date: new Date().toISOString(),
      wallMs,
      profile,
      machine: machineFacts(),
      loadAverage: { start: loadStart, end: loadavg()[0] ?? 0 },
      emulatorStarted: emulator.started,
      checks: checks.all,
      pkg,
      single,
      retries,
      throughput,
      realistic,
      features,
      awsShaped,
      rateLimits,
    });
    log(
      `wrote ${path.relative(ROOT, output)} (${checks.all.length} checks, ${checks.failed.length} failed)`,
    );
    for (const failure of checks.failed)
      console.error(`check failed: ${failure.name}: ${failure.detail}`);
    return checks.failed.length === 0 ? 0 : 1;
  } finally {
    admin.sqs.destroy();
    admin.dynamodb.destroy();
    await emulator.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

process.exitCode = await main().catch((err: unknown) => {
  console.error(err);
  return 1;
});
