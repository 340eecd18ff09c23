/**
 * RELIABILITY.md and its raw data, docs/reliability/results.json. The data file keeps every
 * scenario's last result (so a partial run keeps the rest) and the last run's facts; the
 * page is rendered from it through the Markdown templates in ./templates.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fillTemplate, loadTemplate } from '../../../scripts/lib/template.js';
import { KNOWN_FAILURES } from './known-failures.js';
import { renderSection, renderSummary, rowTitle, type ScenarioResult, verdict } from './report.js';

const PAGE = loadTemplate(new URL('./templates/reliability.md', import.meta.url));
const GLANCE = loadTemplate(new URL('./templates/glance.md', import.meta.url));

/** RELIABILITY.md, relative to the repository root. */
export const RELIABILITY_DOC = 'RELIABILITY.md';
/** The raw results behind it, relative to the repository root. */
export const RELIABILITY_DATA = path.join('docs', 'reliability', 'results.json');

/** Facts of the latest fault run. */
export interface FaultRun {
  readonly masterSeed: number;
  readonly date: string;
  readonly wallMs: number;
  /** Scenario files that ran then; the others keep the figures of their own last run. */
  readonly scenarios: number;
}

/** The content of docs/reliability/results.json. */
export interface ReliabilityData {
  readonly run: FaultRun;
  readonly results: readonly ScenarioResult[];
}

/** Reads the data file; undefined when there is none yet (or it is unreadable). */
export async function readReliabilityData(file: string): Promise<ReliabilityData | undefined> {
  try {
    const data = JSON.parse(await readFile(file, 'utf8')) as ReliabilityData;
    return Array.isArray(data.results) ? data : undefined;
  } catch {
    return undefined;
  }
}

/** Merges a run's fresh results over the previous ones (by scenario id) into the new data. */
export function mergeResults(
  previous: ReliabilityData | undefined,
  fresh: readonly ScenarioResult[],
  run: FaultRun,
): ReliabilityData {
  const merged = new Map((previous?.results ?? []).map((r) => [r.id, r]));
  for (const result of fresh) merged.set(result.id, result);
  return { run, results: ordered([...merged.values()]) };
}

/** Scenarios with a one-letter id ((a), (b), …) first, in letter order, then the model and audit tests. */
function ordered(results: readonly ScenarioResult[]): ScenarioResult[] {
  const rank = (r: ScenarioResult) => `${r.id.length <= 2 ? 0 : 1}${r.id}`;
  return [...results].sort((a, b) => rank(a).localeCompare(rank(b)));
}

function sum(results: readonly ScenarioResult[], pick: (r: ScenarioResult) => number | undefined) {
  return results.reduce((total, r) => total + (pick(r) ?? 0), 0);
}

/** The one-minute summary: the verdict, the totals that matter, one row per scenario. */
export function renderGlance(data: ReliabilityData): string {
  const { results, run } = data;
  const failing = results.filter((r) => verdict(r) === 'FAIL');
  const knownFailing = results.filter((r) => verdict(r) === 'pass (known failures)');
  const outcome =
    failing.length > 0
      ? `${failing.length} of ${results.length} scenarios FAIL: ${failing.map((r) => r.title).join(', ')}.`
      : `All ${results.length} scenarios pass.`;
  const rows = results.map((r) => {
    const f = r.figures;
    const cell = (value: number | undefined) => (value === undefined ? '–' : String(value));
    return `| ${rowTitle(r)} | ${cell(f?.tasks)} | ${cell(f?.exactlyOnce)} | ${cell(f?.lost)} | ${cell(f?.duplicatedEffects)} | ${verdict(r)} |`;
  });
  return fillTemplate(
    GLANCE,
    {
      outcome,
      scenarioCount: results.length,
      date: run.date,
      masterSeed: run.masterSeed,
      tasks: sum(results, (r) => r.figures?.tasks).toLocaleString('en-US'),
      lost: sum(results, (r) => r.figures?.lost),
      terminalWrites: sum(results, (r) => r.figures?.duplicatedTerminalWrites),
      unexplained: sum(results, (r) => r.figures?.unexplainedDuplicates),
      known:
        knownFailing.length === 0
          ? 'No known failures are registered.'
          : `${knownFailing.length} scenario(s) pass only because of registered known failures (see below).`,
      table: [
        '| Scenario | Tasks | Completed exactly once | Lost | Duplicated effects (after a lost lease) | Verdict |',
        '| --- | ---: | ---: | ---: | ---: | --- |',
        ...rows,
      ].join('\n'),
    },
    'glance.md',
  );
}

/** RELIABILITY.md from its data. */
export function renderReliability(data: ReliabilityData): string {
  const { run } = data;
  const results = ordered(data.results);
  const known = Object.entries(KNOWN_FAILURES);
  return fillTemplate(
    PAGE,
    {
      glance: renderGlance({ run, results }).trimEnd(),
      lastRun:
        `${run.date}: FAULT_SEED=${run.masterSeed}, ${run.scenarios} scenario file(s), ` +
        `${(run.wallMs / 1000).toFixed(0)} s of wall time on this machine (2 cores). ` +
        'Scenarios not run then keep the figures (and seed) of their own last run.',
      summaryTable: renderSummary(results),
      knownFailures:
        known.length === 0
          ? 'None registered.'
          : known.map(([id, reason]) => `- \`${id}\`: ${reason}`).join('\n'),
      scenarios: results.map(renderSection).join('\n').trimEnd(),
    },
    'reliability.md',
  );
}

/** Writes the data file and the page under `root`. */
export async function writeReliability(root: string, data: ReliabilityData): Promise<void> {
  const dataFile = path.join(root, RELIABILITY_DATA);
  await mkdir(path.dirname(dataFile), { recursive: true });
  await writeFile(dataFile, `${JSON.stringify(data, null, 2)}\n`);
  await writeFile(path.join(root, RELIABILITY_DOC), renderReliability(data));
}
