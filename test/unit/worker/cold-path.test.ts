/**
 * What a Lambda worker loads at cold start: the example worker bundled as the construct
 * bundles it (docs/adr/0006-worker-bundle.md). Only DynamoDB's SDK packages load with it;
 * the others are imported on first use (src/aws/sdk.ts), so a batch whose tasks succeed
 * never loads them.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLING } from '../../../src/cdk/executor-functions.js';

const entry = fileURLToPath(new URL('../../../functions/worker.ts', import.meta.url));

async function externalImports(): Promise<{ path: string; kind: string }[]> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    outdir: 'out',
    platform: 'node',
    format: 'esm',
    target: BUNDLING.target,
    minify: true,
    external: [...BUNDLING.externalModules],
    mainFields: [...BUNDLING.mainFields],
    metafile: true,
    logLevel: 'silent',
  });
  return Object.values(result.metafile.outputs).flatMap((output) =>
    output.imports.filter((i) => i.external && i.path.startsWith('@aws-sdk/')),
  );
}

describe('the worker bundle', () => {
  it('loads only DynamoDB’s SDK at cold start and the other clients on first use', async () => {
    const imports = await externalImports();

    const atStart = [
      ...new Set(imports.filter((i) => i.kind === 'import-statement').map((i) => i.path)),
    ].sort();
    const onFirstUse = [
      ...new Set(imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path)),
    ].sort();
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
