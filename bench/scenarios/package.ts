/**
 * The Lambda package: bundle sizes (minified; as shipped, with the AWS SDK left to the Lambda
 * runtime, and with it bundled) and cold initialization of the shipped form, Tasklane against
 * the Powertools baseline, processes interleaved.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { silentLogger, TaskClient } from '../../src/index.js';
import { EnvVars } from '../../src/settings/location.js';
import { toSqsRecord } from '../../src/worker/sqs-poller.js';
import { noopTask } from '../fixtures/tasks.js';
import { type Bundle, bundle } from '../lib/bundle.js';
import { type ColdStart, coldStart } from '../lib/cold-start.js';
import { type BenchExecutor, createExecutor, createIdempotencyTable } from '../lib/environment.js';
import type { BenchContext } from './context.js';
import { rawSendBatch } from './producers.js';

/** Sizes and cold starts. */
export interface PackageResults {
  readonly bundles: {
    /** `functions/worker.ts` as the construct ships it: `@aws-sdk/*` from the runtime. */
    readonly worker: Bundle;
    /** The same with the AWS SDK bundled in. */
    readonly workerSdkBundled: Bundle;
    /** `functions/worker.ts` with the benchmark's task types, as shipped: the cold-start subject. */
    readonly benchWorker: Bundle;
    /** The Powertools baseline handler the same way (SDK from the runtime): the other subject. */
    readonly powertools: Bundle;
    readonly powertoolsSdkBundled: Bundle;
  };
  readonly coldStarts: { readonly tasklane: ColdStart[]; readonly powertools: ColdStart[] };
}

const source = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url));

/** Builds the bundles and runs the cold starts. */
export async function runPackage(ctx: BenchContext): Promise<PackageResults> {
  // The shipped bundles import `@aws-sdk/*`, which Lambda's runtime provides. An ES module
  // finds packages only in node_modules folders above its own file, so they are written
  // inside this repository's node_modules, whose SDK stands in for the runtime's.
  const shipped = source(`node_modules/.cache/tasklane-bench-${process.pid}`);
  await mkdir(shipped, { recursive: true });
  try {
    return await bundleAndStart(ctx, shipped);
  } finally {
    await rm(shipped, { recursive: true, force: true });
  }
}

async function bundleAndStart(ctx: BenchContext, shipped: string): Promise<PackageResults> {
  const out = (name: string) => path.join(ctx.workDir, name);
  const sdk = { external: ['@aws-sdk/*'] };
  const bundles = {
    worker: await bundle(source('functions/worker.ts'), path.join(shipped, 'worker'), sdk),
    workerSdkBundled: await bundle(source('functions/worker.ts'), out('worker-sdk')),
    benchWorker: await bundle(
      source('bench/fixtures/tasklane-handler.ts'),
      path.join(shipped, 'bench-worker'),
      sdk,
    ),
    powertools: await bundle(
      source('bench/baseline/powertools-handler.ts'),
      path.join(shipped, 'powertools'),
      sdk,
    ),
    powertoolsSdkBundled: await bundle(
      source('bench/baseline/powertools-handler.ts'),
      out('powertools-sdk'),
    ),
  };
  ctx.log(`bundles: worker ${bundles.worker.bytes} B, powertools ${bundles.powertools.bytes} B`);

  const n = ctx.profile.coldInitProcesses;
  // One more pair than measured: the first warms the file cache and is discarded.
  const total = n + 1;
  const tasklane = await createExecutor(ctx.admin, 'cold-tl');
  const powertools = await createExecutor(ctx.admin, 'cold-pt');
  const table = await createIdempotencyTable(ctx.admin.dynamodb, 'cold-pt');
  const coldStarts = { tasklane: [] as ColdStart[], powertools: [] as ColdStart[] };
  try {
    const client = new TaskClient({
      tableName: tasklane.tableName,
      queueUrl: tasklane.queueUrl,
      queueArn: tasklane.queueArn,
      ...ctx.admin,
      logger: silentLogger,
    });
    for (let i = 0; i < total; i++) await client.enqueue(noopTask, { i });
    await rawSendBatch(powertools.queueUrl, total, { batchSize: 10, prefix: 'cold' });
    const tasklaneRecords = await receiveAll(ctx, tasklane, total);
    const powertoolsRecords = await receiveAll(ctx, powertools, total);
    const tasklaneEnv = {
      [EnvVars.TABLE_NAME]: tasklane.tableName,
      [EnvVars.QUEUE_URL]: tasklane.queueUrl,
    };
    const powertoolsEnv = { IDEMPOTENCY_TABLE_NAME: table.tableName };
    for (let i = 0; i < total; i++) {
      const keep = (list: ColdStart[]) => (start: ColdStart) => {
        if (i > 0) list.push(start);
      };
      const runTasklane = async () =>
        keep(coldStarts.tasklane)(
          await coldStart(
            bundles.benchWorker.outfile,
            tasklaneRecords[i] as SQSRecord,
            tasklaneEnv,
          ),
        );
      const runPowertools = async () =>
        keep(coldStarts.powertools)(
          await coldStart(
            bundles.powertools.outfile,
            powertoolsRecords[i] as SQSRecord,
            powertoolsEnv,
          ),
        );
      if (i % 2 === 0) {
        await runTasklane();
        await runPowertools();
      } else {
        await runPowertools();
        await runTasklane();
      }
    }
  } finally {
    await tasklane.destroy();
    await powertools.destroy();
    await table.destroy();
  }
  const failures = [...coldStarts.tasklane, ...coldStarts.powertools].reduce(
    (s, c) => s + c.failures,
    0,
  );
  ctx.checks.equal('cold starts: records reported failed', failures, 0);
  ctx.log(`cold starts: ${n} per bundle done`);
  return { bundles, coldStarts };
}

/** Receives `n` messages as Lambda records, keeping them in flight for the cold starts. */
async function receiveAll(
  ctx: BenchContext,
  executor: BenchExecutor,
  n: number,
): Promise<SQSRecord[]> {
  const records: SQSRecord[] = [];
  for (let attempt = 0; records.length < n && attempt < 100; attempt++) {
    const out = await ctx.admin.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: executor.queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 900,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    for (const m of out.Messages ?? [])
      records.push(toSqsRecord(m, executor.queueArn, 'us-east-1'));
  }
  ctx.checks.equal(
    `cold starts: records received from ${executor.queueUrl.split('/').pop()}`,
    records.length,
    n,
  );
  return records;
}
