import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { BenchResults } from '../report/results.js';
import { renderReport } from '../report/write.js';

async function recordedRun(): Promise<BenchResults> {
  return JSON.parse(await readFile('docs/benchmarks/results.json', 'utf8')) as BenchResults;
}

describe('renderReport', () => {
  it('renders the committed BENCHMARKS.md from the committed results, byte for byte', async () => {
    const results = await recordedRun();

    const report = renderReport(results, 'docs/benchmarks/scaling.png');

    expect(report).toBe(await readFile('BENCHMARKS.md', 'utf8'));
  });

  it('fills every placeholder and keeps the sections in order', async () => {
    const results = await recordedRun();

    const report = renderReport(results, undefined);

    expect(report).not.toMatch(/\{\{|\}\}|<!--/);
    const headings = report.split('\n').filter((line) => line.startsWith('## '));
    expect(headings[0]).toBe('## Summary');
    expect(headings.at(-1)).toBe('## Method');
    expect(report).not.toContain('![Per-task time');
  });
});
