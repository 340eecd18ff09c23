/** Sections 1, 2, 5 and 6 of the report: throughput, processing, the package, scaling (prose in templates/). */
import { summarize } from '../lib/stats.js';
import {
  coldStart,
  drift,
  enqueueAt,
  msPerRequest,
  processAt,
  runsOf,
  scaling,
  singleEnqueue,
} from './analysis.js';
import { kb, med, num, ratio, table } from './markdown.js';
import type { BenchResults } from './results.js';
import { requests } from './tallies.js';
import { templateFile } from './template.js';

const enqueueTemplate = templateFile('enqueue.md');
const processingTemplate = templateFile('processing.md');
const packageTemplate = templateFile('package.md');
const scalingTemplate = templateFile('scaling.md');

/** Section 1: enqueue throughput. */
export function enqueueSection(results: BenchResults): string {
  const rows = results.throughput.sizes.map((n) => {
    const c = enqueueAt(results, n);
    return [String(n), med(c.tasklane, 0), med(c.baseline, 0), ratio(c.ratio)];
  });
  const single = singleEnqueue(results);
  const n = results.throughput.sizes[results.throughput.sizes.length - 1] ?? 0;
  const enqueueRequests = (system: 'tasklane' | 'raw') =>
    summarize(runsOf(results, system, n).map((r) => requests(r.enqueue.tally) / n)).median;
  return enqueueTemplate('section', {
    batchSize: results.profile.batchSize,
    table: table(
      ['Tasks', 'Tasklane enqueueBatch, tasks/s', 'Raw SendMessageBatch, tasks/s', 'Time ratio'],
      rows,
    ),
    largest: n,
    tasklaneRequests: num(enqueueRequests('tasklane')),
    rawRequests: num(enqueueRequests('raw')),
    singleTasks: results.single.tasks,
    singleTable: table(
      ['Tasklane enqueue', 'Raw SendMessage', 'Time ratio'],
      [[med(single.tasklane, 2), med(single.baseline, 2), ratio(single.ratio)]],
    ),
  });
}

/** Section 2: end-to-end processing. */
export function processSection(results: BenchResults): string {
  const { sizes, powertoolsSize } = results.throughput;
  const rows = sizes.map((n) => {
    const c = processAt(results, n);
    return [String(n), 'raw loop', med(c.tasklane, 0), med(c.baseline, 0), ratio(c.ratio)];
  });
  const p = processAt(results, powertoolsSize, 'powertools');
  rows.push([
    String(powertoolsSize),
    'Powertools',
    med(p.tasklane, 0),
    med(p.baseline, 0),
    ratio(p.ratio),
  ]);
  const largest = sizes[sizes.length - 1] ?? 0;
  const tRuns = runsOf(results, 'tasklane', largest);
  const rRuns = runsOf(results, 'raw', largest);
  const consumerRequests = (system: 'tasklane' | 'raw') =>
    summarize(
      runsOf(results, system, largest).map(
        (r) => Object.values(r.consumer.tally).reduce((s, t) => s + t.requests, 0) / largest,
      ),
    ).median;
  const invocation = (system: 'tasklane' | 'raw' | 'powertools', n: number) =>
    summarize(runsOf(results, system, n).map((r) => r.consumer.invocationMedianMs));
  return processingTemplate('section', {
    batchSize: results.profile.batchSize,
    concurrency: results.profile.concurrency,
    table: table(
      ['Tasks', 'Baseline', 'Tasklane, tasks/s', 'Baseline, tasks/s', 'Time ratio'],
      rows,
    ),
    largest,
    tasklaneRequests: num(consumerRequests('tasklane')),
    rawRequests: num(consumerRequests('raw')),
    tasklaneMsPerRequest: med(msPerRequest(tRuns), 1),
    rawMsPerRequest: med(msPerRequest(rRuns), 1),
    tasklaneInvocation: med(invocation('tasklane', largest), 0),
    rawInvocation: med(invocation('raw', largest), 0),
    powertoolsSize,
    powertoolsInvocation: med(invocation('powertools', powertoolsSize), 0),
    tasklaneInvocationAtPowertools: med(invocation('tasklane', powertoolsSize), 0),
  });
}

/** Section 5: bundle sizes and cold starts. */
export function packageSection(results: BenchResults): string {
  const { bundles } = results.pkg;
  const sizeRow = (
    label: string,
    b: { bytes: number; gzipBytes: number; totalBytes?: number },
    base: { bytes: number },
  ) => [
    label,
    kb(b.bytes),
    kb(b.gzipBytes),
    `${num(b.bytes / base.bytes)}×`,
    b.totalBytes === undefined ? '—' : kb(b.totalBytes),
  ];
  const total = coldStart(results, (c) => c.totalMs);
  const imported = coldStart(results, (c) => c.importMs);
  const handled = coldStart(results, (c) => c.handleMs);
  const boot = coldStart(results, (c) => c.bootMs);
  const n = results.pkg.coldStarts.tasklane.length;
  return packageTemplate('section', {
    processes: n,
    sizes: table(
      ['Bundle', 'Loaded at start', 'Gzipped', 'Ratio to Powertools', 'In all, with its chunks'],
      [
        sizeRow(
          'Tasklane worker (`functions/worker.ts`), as shipped',
          bundles.worker,
          bundles.powertools,
        ),
        sizeRow(
          'Tasklane worker, bench tasks (cold-start subject)',
          bundles.benchWorker,
          bundles.powertools,
        ),
        sizeRow(
          'Powertools baseline handler (cold-start subject)',
          bundles.powertools,
          bundles.powertools,
        ),
        sizeRow(
          'Tasklane worker, AWS SDK bundled',
          bundles.workerSdkBundled,
          bundles.powertoolsSdkBundled,
        ),
        sizeRow(
          'Powertools baseline, AWS SDK bundled',
          bundles.powertoolsSdkBundled,
          bundles.powertoolsSdkBundled,
        ),
      ],
    ),
    contributors: table(
      ['Package or folder', 'Bytes loaded at start'],
      bundles.worker.contributors.slice(0, 8).map((c) => [`\`${c.name}\``, kb(c.bytes)]),
    ),
    coldStart: table(
      ['Phase', 'Tasklane', 'Powertools', 'Ratio'],
      [
        ['node start-up', med(boot.tasklane, 0), med(boot.baseline, 0), ratio(boot.ratio)],
        [
          'import and init of the bundle',
          med(imported.tasklane, 0),
          med(imported.baseline, 0),
          ratio(imported.ratio),
        ],
        [
          'handle one event (AWS calls included)',
          med(handled.tasklane, 0),
          med(handled.baseline, 0),
          ratio(handled.ratio),
        ],
        [
          '**total, process start to handled**',
          med(total.tasklane, 0),
          med(total.baseline, 0),
          ratio(total.ratio),
        ],
      ],
    ),
  });
}

/** Section 6: scaling. */
export function scalingSection(results: BenchResults, chart: string | undefined): string {
  const rows = scaling(results);
  const body = rows.map((r) => [
    String(r.n),
    med(r.process.tasklane, 2),
    med(r.process.baseline, 2),
    ratio(r.process.ratio),
    med(r.enqueue.tasklane, 2),
    med(r.enqueue.baseline, 2),
    med(r.rss.tasklane, 0),
    med(r.rss.baseline, 0),
    med(r.heap.tasklane, 1),
    med(r.heap.baseline, 1),
  ]);
  const pct = (x: number) => `${x >= 1 ? '+' : ''}${num((x - 1) * 100, 0)}%`;
  const first = rows[0]?.n ?? 0;
  const last = rows[rows.length - 1]?.n ?? 0;
  return scalingTemplate('section', {
    table: table(
      [
        'Tasks',
        'Tasklane process',
        'Raw process',
        'Process ratio',
        'Tasklane enqueue',
        'Raw enqueue',
        'Tasklane worker peak RSS',
        'Raw loop peak RSS',
        'Tasklane heap after GC',
        'Raw heap after GC',
      ],
      body,
    ),
    first,
    last,
    processTasklane: pct(drift(rows, (r) => r.process.tasklane)),
    processRaw: pct(drift(rows, (r) => r.process.baseline)),
    enqueueTasklane: pct(drift(rows, (r) => r.enqueue.tasklane)),
    enqueueRaw: pct(drift(rows, (r) => r.enqueue.baseline)),
    rssTasklane: pct(drift(rows, (r) => r.rss.tasklane)),
    rssRaw: pct(drift(rows, (r) => r.rss.baseline)),
    heapTasklane: pct(drift(rows, (r) => r.heap.tasklane)),
    heapRaw: pct(drift(rows, (r) => r.heap.baseline)),
    chart: chart === undefined ? '' : scalingTemplate('chart', { path: chart }),
  });
}
