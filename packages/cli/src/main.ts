/**
 * The `tasklane` command of `@tasklane/cli`, which bin/tasklane.js runs. See docs/operations.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { handleBrokenPipes } from './broken-pipe.js';
import { run } from './program.js';

/** The CLI package's version, from the nearest package.json above this module (src/ or dist/). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === '@tasklane/cli' && manifest.version !== undefined) {
        return manifest.version;
      }
    }
    dir = dirname(dir);
  }
  return 'unknown';
}

handleBrokenPipes({ stdout: process.stdout, stderr: process.stderr });
void run(process.argv, packageVersion()).then((code) => {
  process.exitCode = code;
});
