import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

const CLI = path.join(ROOT, 'packages/cli');

interface Manifest {
  name: string;
  version: string;
  bin?: Record<string, string>;
  exports: Record<string, unknown>;
  files: string[];
  engines: { node: string };
  workspaces?: string[];
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;
const cliManifest = JSON.parse(readFileSync(path.join(CLI, 'package.json'), 'utf8')) as Manifest;

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(dir, file));
}

/**
 * The packages a module imports by name (`hono/html` is `hono`), without `node:` ones, and
 * those whose files it resolves to serve them (`dependencyFile('uplot/dist/…')`).
 */
function packagesImported(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/from '([^.'][^']*)'/g),
    ...text.matchAll(/dependencyFile\('([^.'][^']*)'\)/g),
  ]
    .map(([, specifier = '']) => specifier)
    .filter((specifier) => !specifier.startsWith('node:'))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
}

describe('package layout', () => {
  it('keeps src/ self-contained: no import reaches infra/, scripts/, examples/, bench/ or functions/', () => {
    const outside: string[] = [];

    for (const file of sourceFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const [, specifier = ''] of text.matchAll(/from '(\.[^']+)'/g)) {
        const target = path.resolve(path.dirname(file), specifier);
        if (!target.startsWith(`${SRC}${path.sep}`)) {
          outside.push(`${path.relative(ROOT, file)} → ${specifier}`);
        }
      }
    }

    expect(outside).toEqual([]);
  });

  it.each(['.', './cdk', './local', './local/testing'])(
    'exports %s with types, import and require conditions into dist/',
    (entry) => {
      const sub = entry === '.' ? '' : `${entry.slice(2)}/`;

      expect(manifest.exports[entry]).toEqual({
        import: { types: `./dist/esm/${sub}index.d.ts`, default: `./dist/esm/${sub}index.js` },
        require: { types: `./dist/cjs/${sub}index.d.ts`, default: `./dist/cjs/${sub}index.js` },
      });
      expect(existsSync(path.join(SRC, sub, 'index.ts'))).toBe(true);
    },
  );

  it('ships the builds and the sweeper bundle, not the sources', () => {
    expect(manifest.files).toEqual([
      'dist/esm',
      'dist/cjs',
      'dist/lambda',
      'requirements-emulator.txt',
      'requirements-ministack.txt',
    ]);
  });

  it('makes aws-cdk-lib, constructs, esbuild, the Lambda client and the OpenTelemetry API optional peers, and types the Lambda events', () => {
    // The Lambda client only for deployToEmulator (tasklane/local), which disables mappings;
    // the OpenTelemetry API is never imported, only the registry of its 1.x read (docs/tracing.md);
    // esbuild only for the construct, which bundles the worker with the app's (ADR 0069).
    const peers = [
      '@aws-sdk/client-lambda',
      '@opentelemetry/api',
      'aws-cdk-lib',
      'constructs',
      'esbuild',
    ];
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(peers);
    for (const peer of peers) {
      expect(manifest.peerDependenciesMeta[peer]?.optional).toBe(true);
    }
    expect(manifest.dependencies['@types/aws-lambda']).toMatch(/^\^/);
  });

  it('keeps zod out of the dependencies: a task schema is any Standard Schema', () => {
    const runtime = sourceFiles().filter((file) => /from 'zod'/.test(readFileSync(file, 'utf8')));

    expect(Object.keys(manifest.dependencies)).not.toContain('zod');
    expect(runtime).toEqual([]);
  });

  it('leaves the tasklane bin and its dependencies to the CLI package', () => {
    const cliOnly = ['commander', 'hono', '@hono/node-server', '@inquirer/confirm', 'cli-progress'];
    const sdkImports = new Set(sourceFiles().flatMap(packagesImported));

    expect(manifest.bin).toBeUndefined();
    expect(manifest.workspaces).toEqual(['packages/cli']);
    expect(Object.keys(manifest.dependencies).filter((name) => cliOnly.includes(name))).toEqual([]);
    for (const name of Object.keys(cliManifest.dependencies)) {
      if (!(name in manifest.dependencies)) expect(sdkImports).not.toContain(name);
    }
  });

  it('declares every package the CLI imports, and the SDK as a peer of its own version', () => {
    const imported = new Set(sourceFiles(path.join(CLI, 'src')).flatMap(packagesImported));
    imported.delete('tasklane');

    expect(cliManifest.name).toBe('@tasklane/cli');
    expect(cliManifest.version).toBe(manifest.version);
    expect(cliManifest.peerDependencies).toEqual({ tasklane: `^${manifest.version}` });
    expect(cliManifest.devDependencies.tasklane).toBe('file:../..');
    // And the SDK's optional peer its commands need: `emulator deploy` runs deployToEmulator.
    imported.add('@aws-sdk/client-lambda');
    expect(Object.keys(cliManifest.dependencies).sort()).toEqual([...imported].sort());
    expect(cliManifest.bin).toEqual({ tasklane: './bin/tasklane.js' });
    expect(existsSync(path.join(CLI, 'bin/tasklane.js'))).toBe(true);
    expect(cliManifest.files).toEqual(['bin', 'dist']);
    expect(cliManifest.engines).toEqual(manifest.engines);
  });

  it('puts every AWS SDK client on one caret version line', () => {
    const clients = Object.entries(manifest.dependencies).filter(([name]) =>
      /^@aws-sdk\/(client|lib)-/.test(name),
    );

    // One floor for all: the newest version every client Tasklane uses has published (the
    // DynamoDB Streams client lags the others), so npm can share one copy of the SDK's core
    // between them.
    expect(clients.length).toBeGreaterThanOrEqual(4);
    expect(new Set(clients.map(([, range]) => range))).toEqual(new Set(['^3.1141.0']));
  });
});
