/**
 * `npm run build` (also `prepare` and `prepack`): the SDK's dist/, then the CLI package's.
 * - dist/esm: the ES modules, with .d.ts files and source maps (tsc, tsconfig.build.json).
 * - dist/cjs: the same modules as CommonJS (esbuild, file by file, no bundling), with the
 *   same .d.ts files and a package.json that says `"type": "commonjs"`.
 * - dist/lambda/sweeper: the sweeper's pre-bundled Lambda handler (scripts/build/sweeper.ts).
 * The emulator's request-serializing wrapper (src/local/moto_server_serial.py) is copied
 * next to the module that runs it, in both builds.
 *
 * Then the CLI package (packages/cli, `@tasklane/cli`): packages/cli/dist, its ES modules
 * with source maps (tsc, packages/cli/tsconfig.build.json). It imports the SDK by name, so
 * tsc reads the SDK's declarations just built, as an installed package would.
 *
 * `--sweeper` builds the sweeper's bundle only (the repository's CDK app runs it first);
 * `--cli` the CLI package only, from the SDK's dist/ (its `npm pack` runs that).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { bundleSweeper } from './build/sweeper.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
const ASSETS = ['local/moto_server_serial.py', 'local/ministack_server.py'];
const CLI = path.join(ROOT, 'packages/cli');

/** Every file under `dir`, relative to it. */
async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** `tsc -p <project>`, from the repository's root. */
function typescript(project: string): void {
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', project], { cwd: ROOT, stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`tsc -p ${project} exited with ${run.status}`);
}

/** packages/cli/dist, compiled against the SDK's dist/esm declarations. */
async function cli(): Promise<void> {
  if (!existsSync(path.join(DIST, 'esm/index.d.ts'))) {
    throw new Error(
      'The CLI compiles against the SDK as installed (dist/esm): run `npm run build` at the root first.',
    );
  }
  await rm(path.join(CLI, 'dist'), { recursive: true, force: true });
  typescript('packages/cli/tsconfig.build.json');
  // The console's browser script is served as it is (console/assets.ts reads it beside the
  // module): plain JavaScript, which tsc does not copy.
  for (const asset of CLI_ASSETS) {
    await cp(path.join(CLI, 'src', asset), path.join(CLI, 'dist', asset));
  }
}

/** Files of the CLI package shipped as they are, relative to its src/. */
const CLI_ASSETS = ['console/browser/console.js'];

/**
 * CommonJS from the same sources. `import.meta.url` and `import.meta.dirname` (used to find
 * files that ship beside a module) become their CommonJS equivalents; nothing else differs.
 */
async function commonjs(sources: string[]): Promise<void> {
  const outdir = path.join(DIST, 'cjs');
  const usesMeta = await Promise.all(
    sources.map(async (f) => (await readFile(path.join(SRC, f), 'utf8')).includes('import.meta')),
  );
  const common = {
    outdir,
    outbase: SRC,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    sourcemap: true,
    sourcesContent: true,
    logLevel: 'warning',
  } as const;
  const entryPoints = (meta: boolean) =>
    sources.filter((_, i) => usesMeta[i] === meta).map((f) => path.join(SRC, f));
  await build({ ...common, entryPoints: entryPoints(false) });
  await build({
    ...common,
    entryPoints: entryPoints(true),
    define: { 'import.meta.url': '__tasklaneModuleUrl', 'import.meta.dirname': '__dirname' },
    banner: {
      js: "const __tasklaneModuleUrl = require('node:url').pathToFileURL(__filename).href;",
    },
  });
  await interopLikeTypeScript(outdir);
  await writeFile(path.join(outdir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  for (const file of await files(path.join(DIST, 'esm'))) {
    if (file.endsWith('.d.ts')) await cp(path.join(DIST, 'esm', file), path.join(outdir, file));
  }
}

/** `npm pack` and `npm publish` run prepack, then prepare: the second build is the same. */
function builtByPrepack(): boolean {
  const command = process.env.npm_command;
  return (
    process.env.npm_lifecycle_event === 'prepare' && (command === 'pack' || command === 'publish')
  );
}

/**
 * esbuild converts an import in a `"type": "module"` source with Node's interop
 * (`__toESM(require(x), 1)`): the default import is the whole `module.exports`, even when
 * that carries `__esModule`. An ESM-only dependency (p-limit) loaded by require() is its
 * namespace object, which has `__esModule` and `default`, so its default import would be the
 * namespace, not the function. Dropping the flag gives TypeScript's interop (`__importDefault`),
 * under which `__esModule` modules keep their `default`.
 */
async function interopLikeTypeScript(outdir: string): Promise<void> {
  for (const file of await files(outdir)) {
    if (!file.endsWith('.js')) continue;
    const target = path.join(outdir, file);
    const text = await readFile(target, 'utf8');
    const fixed = text.replace(/__toESM\((require\("[^"]+"\)), 1\)/g, '__toESM($1)');
    if (fixed !== text) await writeFile(target, fixed);
  }
}

async function main(): Promise<void> {
  if (builtByPrepack()) {
    console.log('dist/ was built by prepack');
    return;
  }
  if (process.argv.includes('--sweeper')) {
    await bundleSweeper(ROOT);
    return;
  }
  if (process.argv.includes('--cli')) {
    await cli();
    console.log('built packages/cli/dist');
    return;
  }
  const started = performance.now();
  await rm(DIST, { recursive: true, force: true });
  await mkdir(DIST, { recursive: true });
  typescript('tsconfig.build.json');
  const sources = (await files(SRC)).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await commonjs(sources);
  for (const asset of ASSETS) {
    for (const format of ['esm', 'cjs']) {
      await cp(path.join(SRC, asset), path.join(DIST, format, asset));
    }
  }
  await bundleSweeper(ROOT);
  await cli();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`built dist/ (esm, cjs, lambda/sweeper) and packages/cli/dist in ${seconds} s`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
