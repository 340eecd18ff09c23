/**
 * esbuild bundles, built the way the construct packages a worker (src/cdk/worker-bundling.ts):
 * minified ESM for node24, split into an entry file and the chunks it loads on first use.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { bundleLoad } from '../../scripts/bundle-load.js';
import { WORKER_ENTRY_FILE, workerBuildOptions } from '../../src/cdk/worker-bundling.js';

/** A built bundle and its size. */
export interface Bundle {
  /** Relative to the working directory. */
  readonly entry: string;
  /** The entry file, `index.mjs` in the bundle's directory. */
  readonly outfile: string;
  /** JavaScript bytes loaded at start: the entry file and the chunks it imports statically. */
  readonly bytes: number;
  /** The same, gzipped file by file. */
  readonly gzipBytes: number;
  /** JavaScript bytes of every file, the chunks loaded on first use included. */
  readonly totalBytes: number;
  /** Bytes loaded at start by package (or source folder), largest first. */
  readonly contributors: readonly { readonly name: string; readonly bytes: number }[];
}

/**
 * Bundles `entry` into the directory `outdir` (`index.mjs` and `chunks/`). `external`
 * leaves packages out (e.g. the runtime's SDK); by default the AWS SDK is bundled in.
 */
export async function bundle(
  entry: string,
  outdir: string,
  options: { minify?: boolean; external?: readonly string[] } = {},
): Promise<Bundle> {
  const result = await build({
    ...workerBuildOptions(entry, outdir),
    minify: options.minify ?? true,
    sourcemap: false,
    external: [...(options.external ?? [])],
    logLevel: 'error',
  });
  const load = bundleLoad(result.metafile);
  const byName = new Map<string, number>();
  for (const [file, bytes] of load.startInputs) {
    const name = contributor(file);
    byName.set(name, (byName.get(name) ?? 0) + bytes);
  }
  const contributors = [...byName]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes);
  let gzipBytes = 0;
  for (const file of load.startFiles) gzipBytes += gzipSync(await readFile(file)).length;
  return {
    entry: path.relative(process.cwd(), entry),
    outfile: path.join(outdir, WORKER_ENTRY_FILE),
    bytes: load.startBytes,
    gzipBytes,
    totalBytes: load.totalBytes,
    contributors,
  };
}
/** `node_modules/@scope/pkg/...` → `@scope/pkg`; `src/worker/x.ts` → `src/worker`. */
function contributor(file: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (match?.[1] !== undefined) return match[1];
  return file.split('/').slice(0, 2).join('/');
}
