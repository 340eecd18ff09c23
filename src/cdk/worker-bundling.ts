/**
 * The worker's bundle: esbuild with code splitting, run locally at synth, into a directory
 * that holds `index.mjs` (the handler and what every run needs) and `chunks/`, the features
 * a worker loads on first use (durable runs, the poller, the claim check…). CDK's
 * NodejsFunction writes one file, which inlines every dynamic import, so a worker would
 * load every feature whether its tasks use it or not (docs/adr/0069-worker-chunks.md).
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AssetHashType, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { ValidationError } from '../core/errors.js';

/**
 * esbuild settings shared by every function, the worker's bundle here and the sweeper's in
 * the package's build. The AWS SDK v3 (`@aws-sdk/*`) is left out and taken from the Lambda
 * runtime, which ships it: the bundle holds Tasklane, the tasks and their other
 * dependencies only (docs/adr/0006-worker-bundle.md). The target is node24, the oldest
 * Lambda runtime the functions may get; the repository's tests run Node 24 too.
 */
export const BUNDLING = {
  format: 'esm',
  platform: 'node',
  target: 'node24',
  minify: true,
  sourcemap: true,
  // Errors are told apart by constructor name (PermanentError, LeaseLostError…), the
  // tasks' own error classes included.
  keepNames: true,
  external: ['@aws-sdk/*'],
  mainFields: ['module', 'main'],
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner:
    "import { createRequire as __tasklaneCreateRequire } from 'node:module'; const require = __tasklaneCreateRequire(import.meta.url);",
} as const;

/** The file in a worker's asset that exports `handler`. */
export const WORKER_ENTRY_FILE = 'index.mjs';

/** The esbuild options (the subset Tasklane sets) that bundle a worker into `outdir`. */
export interface WorkerBuildOptions {
  readonly entryPoints: Readonly<Record<string, string>>;
  readonly outdir: string;
  readonly bundle: true;
  readonly splitting: true;
  readonly format: 'esm';
  readonly platform: 'node';
  readonly target: string;
  readonly minify: boolean;
  readonly sourcemap: boolean;
  readonly keepNames: boolean;
  readonly external: string[];
  readonly mainFields: string[];
  readonly banner: { readonly js: string };
  readonly outExtension: { readonly '.js': '.mjs' };
  readonly chunkNames: string;
  readonly metafile: true;
  readonly logLevel: 'warning';
}

/**
 * The options that bundle `entry` into `outdir`: `index.mjs`, its chunks under `chunks/`,
 * their source maps, and esbuild's metafile (`index.meta.json`, written by the caller).
 */
export function workerBuildOptions(entry: string, outdir: string): WorkerBuildOptions {
  return {
    entryPoints: { index: entry },
    outdir,
    bundle: true,
    splitting: true,
    format: BUNDLING.format,
    platform: BUNDLING.platform,
    target: BUNDLING.target,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourcemap,
    keepNames: BUNDLING.keepNames,
    external: [...BUNDLING.external],
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
  };
}

/** What this module calls of esbuild's JavaScript API. */
interface Esbuild {
  buildSync(options: WorkerBuildOptions): { readonly metafile?: unknown };
}

/**
 * The CDK app's esbuild: the first that loads from `searchFrom`, each a directory from which
 * it is resolved as Node would resolve an import there.
 *
 * @throws ValidationError when none loads.
 */
function findEsbuild(searchFrom: readonly string[]): Esbuild {
  const failures: string[] = [];
  for (const directory of searchFrom) {
    try {
      return createRequire(path.join(directory, 'noop.js'))('esbuild') as Esbuild;
    } catch (err) {
      failures.push(
        `${directory}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      );
    }
  }
  throw new ValidationError('TaskExecutor workerEntry', [
    {
      path: 'workerEntry',
      message: `expected esbuild installed in the CDK app, which bundles the worker locally, without Docker (npm install --save-dev esbuild); none loads from ${failures.join('; ')}`,
    },
  ]);
}

/**
 * Bundles the worker at synth, on this machine: CDK calls it with the asset's staging
 * directory. `entry` is a field, so that two workers' assets never share CDK's bundling
 * cache (its key is made of the bundling options).
 */
export class WorkerBundling implements ILocalBundling {
  /**
   * @param entry the worker's module, an absolute path
   * @param searchFrom where esbuild is looked for: the entry's directory, then the app's
   */
  constructor(
    readonly entry: string,
    private readonly searchFrom: readonly string[] = [path.dirname(entry), process.cwd()],
  ) {}

  tryBundle(outputDir: string): boolean {
    const esbuild = findEsbuild(this.searchFrom);
    const result = esbuild.buildSync(workerBuildOptions(this.entry, outputDir));
    writeMetafile(outputDir, result.metafile);
    return true;
  }
}

/** Writes esbuild's metafile beside the bundle, as NodejsFunction does with `metafile`. */
function writeMetafile(outputDir: string, metafile: unknown): void {
  writeFileSync(path.join(outputDir, 'index.meta.json'), JSON.stringify(metafile));
}

/**
 * The worker's code: `entry` (an existing module, checked with the props) bundled with
 * {@link WorkerBundling}; the asset's hash is the bundle's, so that a change anywhere in
 * what it imports deploys it again.
 */
export function workerCode(entry: string): Code {
  const absolute = path.resolve(entry);
  return Code.fromAsset(path.dirname(absolute), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never run: local bundling always succeeds or throws. CDK requires an image.
      image: DockerImage.fromRegistry('tasklane-bundles-locally'),
      local: new WorkerBundling(absolute),
    },
  });
}
