/**
 * What a Lambda worker loads at cold start: the example worker bundled as the construct
 * bundles it (docs/adr/0006-worker-bundle.md, docs/adr/0069-worker-chunks.md). Only
 * DynamoDB's SDK packages load with it; the others are imported on first use
 * (src/aws/sdk.ts), so a batch whose tasks succeed never loads them. The features a task set
 * may not use are chunks of their own, loaded on first use.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleLoad } from '../../../scripts/bundle-load.js';
import { workerBuildOptions } from '../../../src/cdk/worker-bundling.js';

const entry = fileURLToPath(new URL('../../../functions/worker.ts', import.meta.url));

/** The example worker bundled as the construct bundles it, in memory. */
async function exampleLoad() {
  const result = await build({
    ...workerBuildOptions(entry, 'out'),
    write: false,
    logLevel: 'silent',
  });
  return bundleLoad(result.metafile);
}

/** The example worker's externals: imported at start, and only on first use. */
async function externalImports(): Promise<{ atStart: string[]; onFirstUse: string[] }> {
  const load = await exampleLoad();
  return {
    atStart: load.startExternals.filter((p) => p.startsWith('@aws-sdk/')),
    onFirstUse: load.laterExternals.filter((p) => p.startsWith('@aws-sdk/')),
  };
}

describe('the worker bundle', () => {
  it('loads only DynamoDB’s SDK at cold start and the other clients on first use', async () => {
    const { atStart, onFirstUse } = await externalImports();

    expect(atStart).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/util-dynamodb',
    ]);
    expect(onFirstUse).toEqual(
      expect.arrayContaining([
        '@aws-sdk/client-eventbridge',
        '@aws-sdk/client-kms',
        '@aws-sdk/client-s3',
        '@aws-sdk/client-scheduler',
        '@aws-sdk/client-sqs',
      ]),
    );
  }, 30_000);

  it('leaves the features its tasks do not use out of what it loads at start', async () => {
    const load = await exampleLoad();
    const atStart = [...load.startInputs.keys()];

    // One module of each feature chunk: a static import of any of them would pull it back.
    for (const module of [
      'src/worker/durable-run.ts',
      'src/worker/durable-waits.ts',
      'src/worker/wait-end.ts',
      'src/worker/sqs-poller.ts',
      'src/worker/lane-gate.ts',
      'src/scheduler/dispatcher.ts',
      'src/scheduler/wakes.ts',
      'src/worker/firing.ts',
      'src/dependencies/release.ts',
      'src/worker/rate-limit.ts',
      'src/integrity/kms-mac.ts',
      'src/claim-check/object-store.ts',
      // Lifecycle events, the holds of waiting tasks and parked keys, and the attempt's span.
      'src/events/worker-events.ts',
      'src/events/record-events.ts',
      'src/events/publisher.ts',
      'src/worker/held.ts',
      'src/worker/parked.ts',
      'src/worker/attempt-span.ts',
      // The store's parts (docs/adr/0070-store-parts-on-first-use.md), and the rows only they write.
      'src/store/parked-keys.ts',
      'src/store/dependency-store.ts',
      'src/store/debounce.ts',
      'src/store/token-bucket.ts',
      'src/store/steps.ts',
      'src/store/signals.ts',
      'src/store/durable-writes.ts',
      'src/store/repair-writes.ts',
      'src/store/purge.ts',
      'src/store/record-writes.ts',
      'src/store/new-task.ts',
      'src/worker/claim-check.ts',
      'src/store/transitions/durable.ts',
      'src/store/transitions/suspension.ts',
      'src/store/transitions/repairs.ts',
      'src/store/transitions/dependencies.ts',
      'src/store/transitions/debounce.ts',
      'src/store/transitions/rate.ts',
    ]) {
      expect(atStart).not.toContain(module);
    }
    expect(atStart).toContain('src/worker/execution.ts');
    // Each chunk loaded on first use adds shared chunks loaded at start: three feature
    // chunks keep them to a handful.
    expect(load.startFiles.length).toBeLessThanOrEqual(8);
  }, 30_000);
});
