/**
 * The worker's asset: bundled by the construct with esbuild into `index.mjs` and the chunks it
 * loads on first use (src/cdk/worker-bundling.ts, docs/adr/0069-worker-chunks.md).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';
import { WorkerBundling } from '../../src/cdk/worker-bundling.js';
import { ValidationError } from '../../src/core/errors.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
// Inside the repository, so that the entries resolve esbuild as an app's would.
const cache = path.join(ROOT, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const scratch = mkdtempSync(path.join(cache, 'tasklane-bundling-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes a worker module that exports a handler answering `word`. */
function entry(name: string, word: string): string {
  const file = path.join(scratch, name);
  writeFileSync(
    file,
    `export const handler = async () => ({ batchItemFailures: [], word: ${JSON.stringify(word)} });\n`,
  );
  return file;
}

/** The asset directory of each function of `stack` whose description names `worker`. */
function workerAssets(stack: Stack, outdir: string): string[] {
  const functions = Template.fromStack(stack).findResources('AWS::Lambda::Function');
  return Object.values(functions)
    .filter((f) => String(f.Properties?.Description).includes('worker'))
    .map((f) => {
      const key = String((f.Properties?.Code as { S3Key?: unknown } | undefined)?.S3Key);
      return path.join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
    });
}

describe('the worker asset', () => {
  it('bundles two workers whose entries share a directory into two assets', () => {
    const outdir = path.join(scratch, 'cdk.out');
    const app = new App({ outdir });
    const stack = new Stack(app, 'Two');
    new TaskExecutor(stack, 'Alpha', { name: 'alpha', workerEntry: entry('alpha.ts', 'alpha') });
    new TaskExecutor(stack, 'Beta', { name: 'beta', workerEntry: entry('beta.ts', 'beta') });
    app.synth();

    const assets = workerAssets(stack, outdir);

    expect(new Set(assets).size).toBe(2);
    const words = assets.map((dir) => readFileSync(path.join(dir, 'index.mjs'), 'utf8'));
    expect(words.filter((code) => code.includes('"alpha"'))).toHaveLength(1);
    expect(words.filter((code) => code.includes('"beta"'))).toHaveLength(1);
    for (const dir of assets) expect(existsSync(path.join(dir, 'index.meta.json'))).toBe(true);
  }, 60_000);

  it('says to install esbuild when none can be loaded', () => {
    const bundling = new WorkerBundling(entry('gamma.ts', 'gamma'), [path.parse(ROOT).root]);

    let thrown: unknown;
    try {
      bundling.tryBundle(path.join(scratch, 'never'));
    } catch (err) {
      thrown = err;
    }

    expect(thrown).toBeInstanceOf(ValidationError);
    expect(String(thrown)).toContain('npm install --save-dev esbuild');
    expect((thrown as ValidationError).issues[0]?.path).toBe('workerEntry');
  });
});
