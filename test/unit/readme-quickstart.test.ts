import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The first TypeScript block after a heading of the README. */
function codeAfter(readme: string, heading: string): string | undefined {
  const section = readme.slice(readme.indexOf(heading));
  return /```ts\n([\s\S]*?)```/.exec(section)?.[1];
}

describe('README quick start', () => {
  it('is the consumer app’s quickstart.ts, which the consumer test type-checks and runs', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const file = await readFile(path.join(ROOT, 'examples/consumer/quickstart.ts'), 'utf8');

    const block = codeAfter(readme, '## Quick start');

    expect(block).toBeDefined();
    expect(file.endsWith(block ?? '\u0000')).toBe(true);
  });
});

/** The lines of a TypeScript example that are not imports nor the file's leading comment. */
function body(code: string): string {
  return code
    .replace(/^\/\*\*[\s\S]*?\*\/\n/, '')
    .split('\n')
    .filter((line) => !line.startsWith('import '))
    .join('\n')
    .trim();
}

describe('README readiness checks', () => {
  it('are examples/readiness.ts, which the repository type-checks', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const file = await readFile(path.join(ROOT, 'examples/readiness.ts'), 'utf8');

    const block = codeAfter(readme, 'A client checks its configuration when asked');

    expect(block).toContain('client.assertReady()');
    expect(body(block ?? '')).toBe(body(file));
  });
});
