/**
 * `npm run build` (also `prepare` and `prepack`): the package's dist/.
 * - dist/esm: the ES modules, with .d.ts files and source maps (tsc, tsconfig.build.json).
 * - dist/cjs: the same modules as CommonJS (esbuild, file by file, no bundling), with the
 *   same .d.ts files and a package.json that says `"type": "commonjs"`.
 * - dist/lambda/sweeper: the sweeper's pre-bundled Lambda handler (scripts/build/sweeper.ts).
 * The emulator's request-serializing wrapper (src/local/moto_server_serial.py) is copied
 * next to the module that runs it, in both builds.
 *
 * `--sweeper` builds the sweeper's bundle only (the repository's CDK app runs it first).
 */
import { spawnSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { bundleSweeper } from './build/sweeper.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
const ASSETS = ['local/moto_server_serial.py', 'local/ministack_server.py'];

/** Every file under `dir`, relative to it. */
async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

function typescript(): void {
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (run.status !== 0) throw new Error(`tsc -p tsconfig.build.json exited with ${run.status}`);
}

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
  const started = performance.now();
  await rm(DIST, { recursive: true, force: true });
  await mkdir(DIST, { recursive: true });
  typescript();
  const sources = (await files(SRC)).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await commonjs(sources);
  for (const asset of ASSETS) {
    for (const format of ['esm', 'cjs']) {
      await cp(path.join(SRC, asset), path.join(DIST, format, asset));
    }
  }
  await bundleSweeper(ROOT);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`built dist/ (esm, cjs, lambda/sweeper) in ${seconds} s`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
