/**
 * Global setup of the projects whose tests run the `tasklane` executable
 * (test/helpers/cli.ts): bundles packages/cli/src/main.ts once per run with esbuild, our
 * sources in one file and the packages left to node_modules, as the published build leaves them.
 * Each run then starts in about a fifth of the CPU time that loading every source file through
 * tsx's hooks takes, over forty runs per suite (`console` and `dev` still run from source; see
 * cli.ts).
 *
 * The SDK is bundled from its sources (`tasklane` is resolved by tsconfig.json's paths), as the
 * sources run; the CLI package's dependencies stay in node_modules. The bundle sits in a
 * directory of `.tasklane/` under packages/cli, so that it finds the CLI's package.json (its
 * version) and node_modules where the sources do, with the emulator's wrapper
 * (moto_server_serial.py) beside it, where the SDK's build copies it beside the local executor.
 */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Builds the bundle and hands its path to the workers; returns its removal. */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const state = path.join(ROOT, 'packages/cli/.tasklane');
  await mkdir(state, { recursive: true });
  const dir = await mkdtemp(path.join(state, 'test-cli-'));
  const entry = path.join(dir, 'main.mjs');
  await build({
    entryPoints: [path.join(ROOT, 'packages/cli/src/main.ts')],
    outfile: entry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  await copyFile(
    path.join(ROOT, 'src/local/moto_server_serial.py'),
    path.join(dir, 'moto_server_serial.py'),
  );
  project.provide('cliEntry', entry);
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
