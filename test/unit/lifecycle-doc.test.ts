/** docs/design.md draws the lifecycle that the transition table writes. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, lifecycleSection } from '../../scripts/lifecycle-doc.js';

describe('docs/design.md lifecycle', () => {
  it('matches ALL_TRANSITIONS (regenerate with npx tsx scripts/lifecycle-doc.ts)', () => {
    const doc = readFileSync(new URL('../../docs/design.md', import.meta.url), 'utf8');

    const shown = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END) + END.length);

    expect(shown).toBe(lifecycleSection());
  });
});
