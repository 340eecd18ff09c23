/**
 * What a Lambda worker loads at cold start: the example worker bundled as the construct
 * bundles it (docs/adr/0006-worker-bundle.md). Only DynamoDB's SDK packages load with it;
 * the others are imported on first use (src/aws/sdk.ts), so a batch whose tasks succeed
 * never loads them.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleLoad } from '../../../scripts/bundle-load.js';
import { workerBuildOptions } from '../../../src/cdk/worker-bundling.js';

const entry = fileURLToPath(new URL('../../../functions/worker.ts', import.meta.url));

/** The example worker's externals: imported at start, and only on first use. */
async function externalImports(): Promise<{ atStart: string[]; onFirstUse: string[] }> {
  const result = await build({
    ...workerBuildOptions(entry, 'out'),
    write: false,
    logLevel: 'silent',
  });
  const load = bundleLoad(result.metafile);
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
});
