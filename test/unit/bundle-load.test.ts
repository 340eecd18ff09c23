/** What a split bundle loads at start, read from esbuild's metafile (scripts/bundle-load.ts). */
import { describe, expect, it } from 'vitest';
import { type BundleMetafile, bundleLoad } from '../../scripts/bundle-load.js';

const out = '../../tmp/asset';
const metafile: BundleMetafile = {
  inputs: {},
  outputs: {
    [`${out}/index.mjs`]: {
      bytes: 1000,
      entryPoint: 'functions/worker.ts',
      imports: [
        { path: `${out}/chunks/chunk-AAAA.mjs`, kind: 'import-statement' },
        { path: '@aws-sdk/client-dynamodb', kind: 'import-statement', external: true },
        // esbuild may write a dynamic import's path other than as the output's key.
        { path: '/tmp/asset/chunks/durable-features-BBBB.mjs', kind: 'dynamic-import' },
        { path: '@aws-sdk/client-sqs', kind: 'dynamic-import', external: true },
      ],
      inputs: { 'src/worker/execution.ts': { bytesInOutput: 600 } },
    },
    [`${out}/index.mjs.map`]: { bytes: 5000 },
    [`${out}/chunks/chunk-AAAA.mjs`]: {
      bytes: 200,
      imports: [{ path: 'node:crypto', kind: 'import-statement', external: true }],
      inputs: { 'src/core/constants.ts': { bytesInOutput: 150 } },
    },
    [`${out}/chunks/durable-features-BBBB.mjs`]: {
      bytes: 300,
      entryPoint: 'src/worker/durable-features.ts',
      imports: [
        { path: `${out}/chunks/chunk-AAAA.mjs`, kind: 'import-statement' },
        { path: '@aws-sdk/client-s3', kind: 'import-statement', external: true },
      ],
      inputs: { 'src/worker/durable-run.ts': { bytesInOutput: 280 } },
    },
  },
};

describe('bundleLoad', () => {
  it('counts the entry and its static chunks at start, every JavaScript file in all', () => {
    const load = bundleLoad(metafile);

    expect(load.entry).toBe(`${out}/index.mjs`);
    expect(load.startFiles).toEqual([`${out}/index.mjs`, `${out}/chunks/chunk-AAAA.mjs`]);
    expect(load.startBytes).toBe(1200);
    expect(load.totalBytes).toBe(1500);
    expect([...load.startInputs.keys()]).toEqual([
      'src/worker/execution.ts',
      'src/core/constants.ts',
    ]);
  });

  it('tells the packages imported at start from those imported only later', () => {
    const load = bundleLoad(metafile);

    expect(load.startExternals).toEqual(['@aws-sdk/client-dynamodb']);
    expect(load.laterExternals).toEqual(['@aws-sdk/client-s3', '@aws-sdk/client-sqs']);
  });

  it('refuses a metafile without an index.mjs entry', () => {
    const { [`${out}/index.mjs`]: _entry, ...rest } = metafile.outputs;

    expect(() => bundleLoad({ inputs: {}, outputs: rest })).toThrow('index.mjs entry');
  });
});
