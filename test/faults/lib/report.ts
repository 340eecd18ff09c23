/**
 * Scenario results: each test file writes one JSON result into the run's results folder;
 * the global teardown renders them all into RELIABILITY.md (prose in ./templates/*.md).
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fillTemplate, loadTemplate } from '../../../scripts/lib/template.js';
import type { Figures } from './classify.js';

const SCENARIO_TEMPLATE = loadTemplate(new URL('./templates/scenario.md', import.meta.url));

/** One pass criterion and how it fared. */
export interface CriterionResult {
  readonly id: string;
  readonly text: string;
  readonly actual: string;
  readonly pass: boolean;
  /** Set when the criterion is a registered known failure (see known-failures.ts). */
  readonly known?: string;
}

/** What a scenario (or the model and audit tests) reports. */
export interface ScenarioResult {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly masterSeed: number;
  readonly seed: number;
  readonly date: string;
  readonly wallMs: number;
  readonly figures?: Partial<Figures>;
  readonly criteria: readonly CriterionResult[];
  readonly notes: Readonly<Record<string, string | number>>;
  /** Model-based tests: how many command sequences ran (shown beside the title). */
  readonly sequences?: number;
}

export async function saveResult(dir: string, result: ScenarioResult): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${result.id}.json`), JSON.stringify(result, null, 2));
}

export async function loadResults(dir: string): Promise<ScenarioResult[]> {
  let files: string[];
  try {
    files = await readdir(dir);
  } catch {
    return [];
  }
  const results: ScenarioResult[] = [];
  for (const file of files.filter((f) => f.endsWith('.json')).sort()) {
    results.push(JSON.parse(await readFile(path.join(dir, file), 'utf8')) as ScenarioResult);
  }
  return results;
}

export const FIGURE_COLUMNS: readonly [keyof Figures, string][] = [
  ['tasks', 'tasks'],
  ['exactlyOnce', 'completed exactly once'],
  ['lost', 'lost'],
  ['duplicatedEffects', 'duplicated effects'],
  ['duplicatedTerminalWrites', 'duplicated terminal writes'],
  ['unexpected', 'unexpected'],
  ['lostLeases', 'lost leases'],
  ['timedOutAttempts', 'of which timeouts'],
  ['unexplainedDuplicates', 'duplicates not explained by a lost lease'],
  ['maxAttemptsSeen', 'max attempts seen'],
  ['handlerCalls', 'handler calls'],
];

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The scenario's name in a table row: its title, and a model test's command sequences. */
export function rowTitle(result: ScenarioResult): string {
  return result.sequences === undefined
    ? result.title
    : `${result.title}: ${result.sequences.toLocaleString('en-US')} command sequences`;
}

/** 'pass', 'pass (known failures)' or 'FAIL'. */
export function verdict(result: ScenarioResult): string {
  if (result.criteria.some((c) => !c.pass && c.known === undefined)) return 'FAIL';
  if (result.criteria.some((c) => !c.pass)) return 'pass (known failures)';
  return 'pass';
}

/** The per-scenario table of figures, as printed to the console and written to the file. */
export function figuresTable(result: ScenarioResult): string {
  const rows: string[] = ['| figure | value |', '| --- | ---: |'];
  if (result.figures !== undefined) {
    for (const [key, label] of FIGURE_COLUMNS)
      rows.push(`| ${label} | ${result.figures[key] ?? '–'} |`);
  }
  for (const [key, value] of Object.entries(result.notes)) rows.push(`| ${key} | ${value} |`);
  rows.push(`| wall time | ${seconds(result.wallMs)} |`);
  return rows.join('\n');
}

function criteriaList(result: ScenarioResult): string {
  return result.criteria
    .map((c) => {
      const mark = c.pass ? 'PASS' : c.known !== undefined ? 'KNOWN FAILURE' : 'FAIL';
      const note =
        c.known === undefined
          ? ''
          : c.pass
            ? ' (registered as a known failure, which did not occur in this run)'
            : ` (see Known failures: \`${result.id}:${c.id}\`)`;
      return `- **${mark}** ${c.text}: ${c.actual}${note}`;
    })
    .join('\n');
}

/** One section of RELIABILITY.md. */
export function renderSection(result: ScenarioResult): string {
  return fillTemplate(
    SCENARIO_TEMPLATE,
    {
      title: result.title,
      description: result.description,
      seed: result.seed,
      masterSeed: result.masterSeed,
      date: result.date,
      verdict: verdict(result),
      figures: figuresTable(result),
      criteria: criteriaList(result),
    },
    'scenario.md',
  );
}

/** The summary table: one row per scenario. */
export function renderSummary(results: readonly ScenarioResult[]): string {
  const withFigures = results.filter((r) => r.figures !== undefined);
  const head = `| scenario | ${FIGURE_COLUMNS.map(([, label]) => label).join(' | ')} | wall time | verdict |`;
  const rule = `| --- | ${FIGURE_COLUMNS.map(() => '---:').join(' | ')} | ---: | --- |`;
  const rows = withFigures.map((r) => {
    const cells = FIGURE_COLUMNS.map(([key]) => String(r.figures?.[key] ?? '–'));
    return `| ${rowTitle(r)} | ${cells.join(' | ')} | ${seconds(r.wallMs)} | ${verdict(r)} |`;
  });
  const others = results
    .filter((r) => r.figures === undefined)
    .map(
      (r) =>
        `| ${rowTitle(r)} | ${FIGURE_COLUMNS.map(() => '').join(' | ')} | ${seconds(r.wallMs)} | ${verdict(r)} |`,
    );
  return [head, rule, ...rows, ...others].join('\n');
}
