import { describe, expect, it } from 'vitest';
import {
  fillTemplate,
  parseBlocks,
  placeholders,
  TemplateError,
} from '../../scripts/lib/template.js';

describe('fillTemplate', () => {
  it('replaces every placeholder, numbers included, and drops the editing notes', () => {
    const template =
      '<!-- notes for editors -->\n# {{title}}\n\n{{ count }} tasks, {{title}} again.\n';

    const text = fillTemplate(template, { title: 'Run', count: 3 });

    expect(text).toBe('# Run\n\n3 tasks, Run again.\n');
  });

  it('does not expand placeholders that appear inside a value', () => {
    const text = fillTemplate('{{a}} {{b}}', { a: '{{b}}', b: 'x' });

    expect(text).toBe('{{b}} x');
  });

  it('names the placeholders without a value and the values without a placeholder', () => {
    const fill = () => fillTemplate('{{a}} {{b}}', { a: 1, c: 2 }, 'page.md');

    expect(fill).toThrow(TemplateError);
    expect(fill).toThrow('page.md: no value for {{b}}; no placeholder for c');
  });
});

describe('placeholders', () => {
  it('lists each name once, in order of first use, ignoring comments', () => {
    expect(placeholders('<!-- {{hidden}} -->{{b}} {{a}} {{b}}')).toEqual(['b', 'a']);
  });
});

describe('parseBlocks', () => {
  it('cuts a file into named blocks, drops the preamble and the trailing newlines', () => {
    const text = 'Notes for editors.\n\n<!-- block: a -->\n# A\n\n<!-- block: b -->\n\n\nB\n';

    const blocks = parseBlocks(text, 'file.md');

    expect(blocks.names).toEqual(['a', 'b']);
    expect(blocks.get('a')).toBe('# A');
    expect(blocks.get('b')).toBe('\n\nB');
  });

  it('refuses a missing block and a block defined twice', () => {
    const blocks = parseBlocks('<!-- block: a -->\nA\n', 'file.md');

    expect(() => blocks.get('z')).toThrow('file.md: no block z');
    expect(() => parseBlocks('<!-- block: a -->\n<!-- block: a -->\n', 'twice.md')).toThrow(
      'twice.md: block a appears twice',
    );
  });
});
