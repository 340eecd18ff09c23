/** Assembles BENCHMARKS.md, docs/capacity.md, the scaling chart and the raw results, and writes them. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chartSvg, type Panel, type Series, svgToPng } from '../lib/chart.js';
import type { Summary } from '../lib/stats.js';
import { scaling } from './analysis.js';
import { renderCapacity } from './capacity.js';
import { costSection } from './cost-section.js';
import { glanceSection } from './glance-section.js';
import { judgeIssue29Targets } from './issue29-targets.js';
import { awsShapedSection, featuresSection, realisticSection } from './measured-sections.js';
import { header, methodSection } from './method-section.js';
import { rateSection } from './rate-section.js';
import { requestsSection } from './requests-section.js';
import type { BenchResults } from './results.js';
import { enqueueSection, packageSection, processSection, scalingSection } from './sections.js';
import { summaryTable } from './summary-section.js';
import { headline, judgeTargets } from './targets.js';
import { targetsSection } from './targets-section.js';
import { templateFile } from './template.js';

const ASSETS = 'docs/benchmarks';
const reportTemplate = templateFile('report.md');

function series(
  name: string,
  color: string,
  xs: readonly number[],
  ys: readonly Summary[],
  dashed = false,
): Series {
  return {
    name,
    color,
    dashed,
    points: xs.map((x, i) => {
      const s = ys[i] as Summary;
      return { x, y: s.median, min: s.min, max: s.max };
    }),
  };
}

function panels(results: BenchResults): Panel[] {
  const rows = scaling(results);
  const xs = rows.map((r) => r.n);
  return [
    {
      title: 'Time per task',
      yLabel: 'ms per task (log scale)',
      logY: true,
      series: [
        series(
          'Tasklane processing',
          '#1f6feb',
          xs,
          rows.map((r) => r.process.tasklane),
        ),
        series(
          'raw loop processing',
          '#8b949e',
          xs,
          rows.map((r) => r.process.baseline),
        ),
        series(
          'Tasklane enqueueBatch',
          '#1f6feb',
          xs,
          rows.map((r) => r.enqueue.tasklane),
          true,
        ),
        series(
          'raw SendMessageBatch',
          '#8b949e',
          xs,
          rows.map((r) => r.enqueue.baseline),
          true,
        ),
      ],
    },
    {
      title: 'Memory of the consumer process',
      yLabel: 'MB',
      logY: false,
      series: [
        series(
          'Tasklane peak RSS',
          '#1f6feb',
          xs,
          rows.map((r) => r.rss.tasklane),
        ),
        series(
          'raw loop peak RSS',
          '#8b949e',
          xs,
          rows.map((r) => r.rss.baseline),
        ),
        series(
          'Tasklane heap after GC',
          '#1f6feb',
          xs,
          rows.map((r) => r.heap.tasklane),
          true,
        ),
        series(
          'raw heap after GC',
          '#8b949e',
          xs,
          rows.map((r) => r.heap.baseline),
          true,
        ),
      ],
    },
  ];
}

/**
 * BENCHMARKS.md from a run's results; `chart` is the scaling chart's path relative to the
 * report, when there is one.
 */
export function renderReport(results: BenchResults, chart: string | undefined): string {
  const h = headline(results);
  return `${reportTemplate('page', {
    glance: glanceSection(
      results,
      h,
      new Map([
        [14, judgeTargets(results, h)],
        [29, judgeIssue29Targets(results, h)],
      ]),
    ),
    header: header(results),
    summaryTable: summaryTable(results, h),
    targets: targetsSection(results, h),
    enqueue: enqueueSection(results),
    processing: processSection(results),
    awsShaped: awsShapedSection(results),
    realistic: realisticSection(results, h),
    features: featuresSection(results),
    requests: requestsSection(results),
    cost: costSection(results),
    package: packageSection(results),
    scaling: scalingSection(results, chart),
    rateLimits: rateSection(results),
    method: methodSection(results),
  })}\n`;
}

/**
 * Where docs/capacity.md goes for a report written to `output`: docs/ beside it, or (quick
 * profile) a prefixed file next to it, like the quick run's other files.
 */
export function capacityPath(output: string, results: BenchResults): string {
  const root = path.dirname(output);
  return results.profile.name === 'quick'
    ? path.join(root, 'bench-quick-capacity.md')
    : path.join(root, 'docs', 'capacity.md');
}

/** Writes docs/capacity.md for a report written to `output`. */
export async function writeCapacity(output: string, results: BenchResults): Promise<string> {
  const file = capacityPath(output, results);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, renderCapacity(results));
  return file;
}

/**
 * Writes the report to `output`, the capacity model beside it, and (for the default and full
 * profiles) the chart and the raw results under docs/benchmarks/ next to it.
 */
export async function writeReport(output: string, results: BenchResults): Promise<void> {
  const root = path.dirname(output);
  const assets = results.profile.name === 'quick' ? root : path.join(root, ASSETS);
  await mkdir(assets, { recursive: true });
  const prefix = results.profile.name === 'quick' ? 'bench-quick-' : '';
  const svg = chartSvg(panels(results), results.throughput.sizes);
  const png = await svgToPng(svg);
  let chart: string | undefined;
  if (png !== undefined) {
    const file = path.join(assets, `${prefix}scaling.png`);
    await writeFile(file, png);
    chart = path.relative(root, file).split(path.sep).join('/');
  }
  await writeFile(
    path.join(assets, `${prefix}results.json`),
    `${JSON.stringify(results, null, 2)}\n`,
  );
  await writeFile(output, renderReport(results, chart));
  await writeCapacity(output, results);
}
