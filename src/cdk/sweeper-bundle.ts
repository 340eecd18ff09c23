/**
 * Where the sweeper's handler is. It ships pre-bundled in the package (`dist/lambda/sweeper`,
 * written by the package's build), so the construct deploys it as it is, with
 * `Code.fromAsset`: a user's app bundles only its own worker, never Tasklane's sources.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The bundle's directory, relative to the package root. */
export const SWEEPER_BUNDLE_DIR = path.join('dist', 'lambda', 'sweeper');

/** The file in {@link SWEEPER_BUNDLE_DIR} that exports `handler`. */
export const SWEEPER_BUNDLE_FILE = 'index.mjs';

/**
 * The package root: the nearest directory above `from` whose package.json is Tasklane's.
 * The build's `dist/cjs/package.json` (`{"type":"commonjs"}`) is passed over.
 */
export function packageRoot(from: string): string {
  let dir = from;
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
      if (name === 'tasklane') return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no tasklane package.json above ${from}`);
    dir = parent;
  }
}

/**
 * The directory that holds the sweeper's bundle.
 *
 * @throws Error when the bundle is missing: in a checkout of the repository, before
 * `npm run build` (the tests' setup builds it). An installed package always has it.
 */
export function sweeperBundleDirectory(from: string = import.meta.dirname): string {
  const directory = path.join(packageRoot(from), SWEEPER_BUNDLE_DIR);
  if (!existsSync(path.join(directory, SWEEPER_BUNDLE_FILE))) {
    throw new Error(
      `TaskExecutor: the sweeper's bundle is missing (${path.join(directory, SWEEPER_BUNDLE_FILE)}). ` +
        'In the tasklane repository, run `npm run build`; the published package includes it.',
    );
  }
  return directory;
}
