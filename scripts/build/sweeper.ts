/**
 * Bundles the sweeper's Lambda handler (functions/sweeper.ts) into the package, where the
 * TaskExecutor construct deploys it from (`Code.fromAsset`). Same esbuild settings as the
 * construct's worker bundling: ESM, node24, minified with names kept, source map, the AWS
 * SDK left to the Lambda runtime.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { SWEEPER_BUNDLE_DIR, SWEEPER_BUNDLE_FILE } from '../../src/cdk/sweeper-bundle.js';
import { BUNDLING } from '../../src/cdk/worker-bundling.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Writes `dist/lambda/sweeper/index.mjs` and its source map; returns the bundle's path. The
 * bundle is built beside the directory and renamed into it, file by file (a rename replaces a
 * file atomically): a test project rebuilding it while another synthesizes a stack from it
 * never leaves that one without a bundle.
 */
export async function bundleSweeper(root: string = ROOT): Promise<string> {
  const outdir = path.join(root, SWEEPER_BUNDLE_DIR);
  const staging = `${outdir}.${randomBytes(4).toString('hex')}.tmp`;
  await mkdir(staging, { recursive: true });
  await build({
    entryPoints: [path.join(root, 'functions/sweeper.ts')],
    outfile: path.join(staging, SWEEPER_BUNDLE_FILE),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourcemap,
    // Mappings only: enough for Lambda's stack traces (--enable-source-maps), a fifth the size.
    sourcesContent: false,
    keepNames: BUNDLING.keepNames,
    external: [...BUNDLING.external],
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    logLevel: 'warning',
  });
  await mkdir(outdir, { recursive: true });
  for (const file of await readdir(staging)) {
    await rename(path.join(staging, file), path.join(outdir, file));
  }
  await rm(staging, { recursive: true, force: true });
  return path.join(outdir, SWEEPER_BUNDLE_FILE);
}
