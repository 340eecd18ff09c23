import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  type FaultRun,
  mergeResults,
  RELIABILITY_DATA,
  readReliabilityData,
  renderGlance,
  renderReliability,
} from '../../test/faults/lib/reliability-doc.js';
import { renderSection, type ScenarioResult } from '../../test/faults/lib/report.js';

const RUN: FaultRun = {
  masterSeed: 7,
  date: '2030-01-01T00:00:00.000Z',
  wallMs: 61_000,
  scenarios: 1,
};

function scenario(id: string, overrides: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    id,
    title: `(${id}) Scenario ${id}`,
    description: `What scenario ${id} does.`,
    masterSeed: 7,
    seed: 100,
    date: '2030-01-01T00:00:00.000Z',
    wallMs: 1_500,
    figures: { tasks: 10, exactlyOnce: 9, lost: 0, duplicatedEffects: 1, unexplainedDuplicates: 0 },
    criteria: [{ id: 'lost', text: 'lost = 0', actual: '0', pass: true }],
    notes: { 'quiesce wait': '0.1 s' },
    ...overrides,
  };
}

describe('renderSection', () => {
  it('fills the scenario template with its seed, verdict, figures and criteria', () => {
    const section = renderSection(scenario('a'));

    expect(section).toContain('### (a) Scenario a\n\nWhat scenario a does.');
    expect(section).toContain('Seed 100 (derived from FAULT_SEED=7)');
    expect(section).toContain('Verdict: **pass**');
    expect(section).toContain('| duplicated effects | 1 |');
    expect(section).toContain('- **PASS** lost = 0: 0');
  });
});

describe('renderGlance', () => {
  it('opens with the verdict and the totals, and names a failing scenario', () => {
    const failing = scenario('b', {
      criteria: [{ id: 'lost', text: 'lost = 0', actual: '2', pass: false }],
      figures: { tasks: 5, lost: 2 },
    });

    const passing = renderGlance({ run: RUN, results: [scenario('a')] });
    const failed = renderGlance({ run: RUN, results: [scenario('a'), failing] });

    expect(passing.startsWith('**All 1 scenarios pass.**')).toBe(true);
    expect(passing).toContain('**0** tasks lost');
    expect(passing).toContain('| (a) Scenario a | 10 | 9 | 0 | 1 | pass |');
    expect(failed.startsWith('**1 of 2 scenarios FAIL: (b) Scenario b.**')).toBe(true);
    expect(failed).toContain('**2** tasks lost');
  });
});

describe('mergeResults', () => {
  it('keeps the scenarios a partial run did not touch, and orders letters before the rest', () => {
    const previous = { run: RUN, results: [scenario('model'), scenario('b'), scenario('a')] };
    const fresh = [scenario('b', { seed: 200 })];

    const merged = mergeResults(previous, fresh, { ...RUN, scenarios: 1 });

    expect(merged.results.map((r) => [r.id, r.seed])).toEqual([
      ['a', 100],
      ['b', 200],
      ['model', 100],
    ]);
  });
});

describe('renderReliability', () => {
  it('puts the summary first and leaves no placeholder and no long line', () => {
    const page = renderReliability({ run: RUN, results: [scenario('a'), scenario('audit')] });

    expect(page.startsWith('# Reliability\n\n**All 2 scenarios pass.**')).toBe(true);
    expect(page).not.toMatch(/\{\{|\}\}|<!--/);
    expect(Math.max(...page.split('\n').map((line) => line.length))).toBeLessThan(1_000);
  });

  it('renders the committed RELIABILITY.md from the committed results, byte for byte', async () => {
    const data = await readReliabilityData(RELIABILITY_DATA);
    if (data === undefined) throw new Error(`${RELIABILITY_DATA} is missing or unreadable`);

    const page = renderReliability(data);

    expect(page).toBe(await readFile('RELIABILITY.md', 'utf8'));
  });
});
