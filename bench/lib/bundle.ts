/**
 * esbuild bundles, built the way a Lambda function is packaged: one minified ESM file for
 * node24 with every dependency inside, the AWS SDK included.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** A built bundle and its size. */
export interface Bundle {
  /** Relative to the working directory. */
  readonly entry: string;
  readonly outfile: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Bytes in the output by package (or source folder), largest first. */
  readonly contributors: readonly { readonly name: string; readonly bytes: number }[];
}

/** ESM bundles of CommonJS dependencies need `require`; Lambda bundlers add the same banner. */
const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** Bundles `entry` into `outfile`. `external` leaves packages out (e.g. the runtime's SDK). */
export async function bundle(
  entry: string,
  outfile: string,
  options: { minify?: boolean; external?: readonly string[] } = {},
): Promise<Bundle> {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    minify: options.minify ?? true,
    keepNames: true,
    banner: { js: REQUIRE_BANNER },
    external: [...(options.external ?? [])],
    logLevel: 'error',
    metafile: true,
  });
  const content = await readFile(outfile);
  const byName = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [file, input] of Object.entries(output.inputs)) {
      const name = contributor(file);
      byName.set(name, (byName.get(name) ?? 0) + input.bytesInOutput);
    }
  }
  const contributors = [...byName]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes);
  return {
    entry: path.relative(process.cwd(), entry),
    outfile,
    bytes: content.length,
    gzipBytes: gzipSync(content).length,
    contributors,
  };
}

/** `node_modules/@scope/pkg/...` → `@scope/pkg`; `src/worker/x.ts` → `src/worker`. */
function contributor(file: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (match?.[1] !== undefined) return match[1];
  return file.split('/').slice(0, 2).join('/');
}
