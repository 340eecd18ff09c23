import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOutput } from '../../../packages/cli/src/output.js';
import { printable } from '../../../packages/cli/src/terminal-text.js';

const CLI = path.resolve(import.meta.dirname, '../../../packages/cli/src');

/** Streams that record what is written; `tty` makes stdout a terminal (colours on). */
function capture(tty = false) {
  const written = { stdout: '', stderr: '' };
  const streams = {
    stdout: { isTTY: tty, write: (s: string) => (written.stdout += s) },
    stderr: { isTTY: false, write: (s: string) => (written.stderr += s) },
  };
  return { written, streams };
}

describe('printable', () => {
  it('escapes C0 controls, DEL and C1 controls, naming newline, return and tab', () => {
    // Act
    const shown = printable('a\u0000\u0007\u001b[2J\n\r\t\u007f\u0085\u009bz');

    // Assert
    expect(shown).toBe('a\\x00\\x07\\x1b[2J\\n\\r\\t\\x7f\\x85\\x9bz');
  });

  it('escapes bidi controls and the line and paragraph separators', () => {
    // Act
    const shown = printable('\u061c\u200e\u200f\u202a\u202e\u2066\u2069\u2028\u2029');

    // Assert
    expect(shown).toBe('\\u061c\\u200e\\u200f\\u202a\\u202e\\u2066\\u2069\\u2028\\u2029');
  });

  it('leaves printable text as it is, in any script', () => {
    // Arrange
    const text = 'Zoë 中文 🙂 ~!@#$%^&*()_+ \\x1b';

    // Act / Assert
    expect(printable(text)).toBe(text);
  });
});

describe('createOutput', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('escapes the data in lines, tables, notes and errors', () => {
    // Arrange
    const { written, streams } = capture();
    const out = createOutput(false, streams);

    // Act
    out.line(['id ', 'a\u001b]0;t\u0007']);
    out.table(['field'], [['\u001b[2J'], [{ nested: '\u009b' }]]);
    out.note('\u202eexe');
    out.error('Invalid id:\n- \u001b[8mhidden', 'hint\u0007');

    // Assert
    expect(written.stdout).toContain('id a\\x1b]0;t\\x07');
    expect(written.stdout).toContain('\\x1b[2J');
    expect(written.stdout).toContain('\\x9b');
    expect(written.stderr).toBe('\\u202eexe\ntasklane: Invalid id:\n- \\x1b[8mhidden\nhint\\x07\n');
  });

  it('keeps its own colour on a terminal while escaping the text it colours', () => {
    // Arrange
    vi.stubEnv('NO_COLOR', undefined);
    const { written, streams } = capture(true);
    const out = createOutput(false, streams);

    // Act
    out.line(out.color.red('DEAD\u001b[0m'));

    // Assert
    expect(written.stdout).toBe('\u001b[31mDEAD\\x1b[0m\u001b[39m\n');
  });

  it('writes JSON exactly, control characters and all', () => {
    // Arrange
    const { written, streams } = capture();
    const out = createOutput(true, streams);
    const value = { id: 'x\u202e', detail: '\u009b\u007f' };

    // Act
    out.data(value);
    out.jsonLine(value);

    // Assert
    const [pretty, line] = written.stdout.split(/\n(?=\{"id")/);
    expect(JSON.parse(pretty ?? '')).toEqual(value);
    expect(JSON.parse(line ?? '')).toEqual(value);
  });
});

describe('the CLI modules', () => {
  it('never write to the terminal themselves: only the Output does, through its streams', async () => {
    // Arrange
    const files = (await readdir(CLI, { recursive: true })).filter((f) => f.endsWith('.ts'));

    // Act
    const writers: string[] = [];
    for (const file of files) {
      const source = await readFile(path.join(CLI, file), 'utf8');
      if (/process\.(stdout|stderr)\.write|console\.(log|error|warn|info)\(/.test(source)) {
        writers.push(file);
      }
    }

    // Assert
    expect(writers).toEqual([]);
  });
});
