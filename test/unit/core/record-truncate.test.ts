import { describe, expect, it } from 'vitest';
import { truncate } from '../../../src/core/record.js';

describe('truncate', () => {
  it('keeps text within the limit unchanged', () => {
    expect(truncate('abc', 3)).toBe('abc');
  });

  it('cuts to the limit, ending with an ellipsis', () => {
    const out = truncate('abcdef', 4);

    expect(out).toBe('abc…');
    expect(out.length).toBe(4);
  });

  it('never leaves half of a surrogate pair', () => {
    const text = `${'x'.repeat(238)}😀tail`;

    const out = truncate(text, 240);

    expect(out).toBe(`${'x'.repeat(238)}…`);
    expect(Buffer.from(out, 'utf8').toString('utf8')).toBe(out);
  });
});
