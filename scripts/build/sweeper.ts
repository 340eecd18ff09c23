/**
 * Bundles the sweeper's Lambda handler (functions/sweeper.ts) into the package, where the
 * TaskExecutor construct deploys it from (`Code.fromAsset`). Same esbuild settings as the
 * construct's worker bundling: ESM, node24, minified with names kept, source map, the AWS
 * SDK left to the Lambda runtime.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { BUNDLING } from '../../src/cdk/executor-functions.js';
import { SWEEPER_BUNDLE_DIR, SWEEPER_BUNDLE_FILE } from '../../src/cdk/sweeper-bundle.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Writes `dist/lambda/sweeper/index.mjs` (and its source map and metafile); returns its path. */
export async function bundleSweeper(root: string = ROOT): Promise<string> {
  const outdir = path.join(root, SWEEPER_BUNDLE_DIR);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const outfile = path.join(outdir, SWEEPER_BUNDLE_FILE);
  const result = await build({
    entryPoints: [path.join(root, 'functions/sweeper.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    keepNames: BUNDLING.keepNames,
    metafile: true,
    external: [...BUNDLING.externalModules],
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    logLevel: 'warning',
  });
  // The name the construct's bundling gives its metafile, which scripts/function-assets.ts reads.
  await writeFile(path.join(outdir, 'index.meta.json'), JSON.stringify(result.metafile));
  return outfile;
}
