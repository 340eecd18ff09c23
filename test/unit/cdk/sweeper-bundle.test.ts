import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot, sweeperBundleDirectory } from '../../../src/cdk/sweeper-bundle.js';

/** A package tree like an installed tasklane: dist/esm/cdk and dist/cjs (type commonjs). */
function installedPackage(withBundle: boolean): string {
  const root = mkdtempSync(path.join(tmpdir(), 'tasklane-pkg-'));
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'tasklane' }));
  mkdirSync(path.join(root, 'dist/esm/cdk'), { recursive: true });
  mkdirSync(path.join(root, 'dist/cjs/cdk'), { recursive: true });
  writeFileSync(path.join(root, 'dist/cjs/package.json'), JSON.stringify({ type: 'commonjs' }));
  if (withBundle) {
    mkdirSync(path.join(root, 'dist/lambda/sweeper'), { recursive: true });
    writeFileSync(path.join(root, 'dist/lambda/sweeper/index.mjs'), 'export const handler = 1;');
  }
  return root;
}

describe('sweeperBundleDirectory', () => {
  it('finds the bundle from the ESM and the CommonJS build alike', () => {
    const root = installedPackage(true);

    const found = ['esm', 'cjs'].map((format) =>
      sweeperBundleDirectory(path.join(root, 'dist', format, 'cdk')),
    );

    expect(found).toEqual([
      path.join(root, 'dist/lambda/sweeper'),
      path.join(root, 'dist/lambda/sweeper'),
    ]);
    expect(packageRoot(path.join(root, 'dist/cjs/cdk'))).toBe(root);
  });

  it('says how to build the bundle when it is missing', () => {
    const root = installedPackage(false);

    expect(() => sweeperBundleDirectory(path.join(root, 'dist/esm/cdk'))).toThrow(
      /sweeper's bundle is missing .*npm run build/,
    );
  });
});
