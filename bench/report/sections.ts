/** Sections 1, 2, 5 and 6 of the report: throughput, processing, the package, scaling. */
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
  return [
    '## 1. Enqueue throughput',
    '',
    `Tasklane's \`enqueueBatch\` (conditional \`PutItem\` per task at concurrency 16, \`SendMessageBatch\` by ${results.profile.batchSize} in order, then \`markSent\` per task) against a raw-SDK baseline that only calls \`SendMessageBatch\` on the same kind of FIFO queue, in order. Tasks/s, median (min–max); the ratio is Tasklane's time ÷ the baseline's.`,
    '',
    table(
      ['Tasks', 'Tasklane enqueueBatch, tasks/s', 'Raw SendMessageBatch, tasks/s', 'Time ratio'],
      rows,
    ),
    '',
    `At ${n} tasks Tasklane makes ${num(enqueueRequests('tasklane'))} requests per task, the baseline ${num(enqueueRequests('raw'))}.`,
    '',
    `Single enqueue (${results.single.tasks} calls in sequence per repetition), ms per task:`,
    '',
    table(
      ['Tasklane enqueue', 'Raw SendMessage', 'Time ratio'],
      [[med(single.tasklane, 2), med(single.baseline, 2), ratio(single.ratio)]],
    ),
  ].join('\n');
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
  return [
    '## 2. End-to-end processing',
    '',
    `N no-op tasks are enqueued first (the enqueue figure above), then drained by the consumer in a fresh node process. Tasklane: \`createWorker(...).lambdaHandler\` behind the local event source mapping (\`runEventSourceMapping\`, batch size ${results.profile.batchSize}, maximum concurrency ${results.profile.concurrency}), with its default logger writing audit lines to stdout. Raw baseline: ${results.profile.concurrency} plain loops of ReceiveMessage, the same no-op per message, DeleteMessageBatch, no state. Powertools baseline: its handler behind the same event source mapping. The clock runs from the consumer's first receive to the delete of the last task. Tasks/s, median (min–max); ratio = Tasklane's time ÷ the baseline's.`,
    '',
    table(['Tasks', 'Baseline', 'Tasklane, tasks/s', 'Baseline, tasks/s', 'Time ratio'], rows),
    '',
    `Why the gap is what it is: at ${largest} tasks Tasklane's consumer makes ${num(consumerRequests('tasklane'))} requests per task (a read and two conditional writes, plus its share of the batch calls), the raw loop ${num(consumerRequests('raw'))}. moto answers one request at a time behind a lock, so concurrency buys nothing here and time grows with the request count: a consumer request took ${med(msPerRequest(tRuns), 1)} ms for Tasklane (larger items, conditional expressions, full item returned) and ${med(msPerRequest(rRuns), 1)} ms for the raw loop. Median invocation time: Tasklane ${med(invocation('tasklane', largest), 0)} ms, raw batch ${med(invocation('raw', largest), 0)} ms; Powertools at ${powertoolsSize} tasks ${med(invocation('powertools', powertoolsSize), 0)} ms vs Tasklane ${med(invocation('tasklane', powertoolsSize), 0)} ms.`,
  ].join('\n');
}

/** Section 5: bundle sizes and cold starts. */
export function packageSection(results: BenchResults): string {
  const { bundles } = results.pkg;
  const sizeRow = (
    label: string,
    b: { bytes: number; gzipBytes: number },
    base: { bytes: number },
  ) => [label, kb(b.bytes), kb(b.gzipBytes), `${num(b.bytes / base.bytes)}×`];
  const total = coldStart(results, (c) => c.totalMs);
  const imported = coldStart(results, (c) => c.importMs);
  const handled = coldStart(results, (c) => c.handleMs);
  const boot = coldStart(results, (c) => c.bootMs);
  const n = results.pkg.coldStarts.tasklane.length;
  return [
    '## 5. The Lambda package',
    '',
    'Bundled with esbuild as the construct packages a function: minified, `platform: node`, `target: node24`, ESM, `keepNames`, every dependency inside except `@aws-sdk/*`, which the Lambda Node.js runtime provides (ADR 0006). The ratio is against the Powertools baseline handler bundled the same way. The last two rows bundle the AWS SDK v3 in as well.',
    '',
    table(
      ['Bundle', 'Minified', 'Gzipped', 'Ratio to Powertools'],
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
    '',
    'Largest contributors to the Tasklane worker bundle, as shipped:',
    '',
    table(
      ['Package or folder', 'Bytes in bundle'],
      bundles.worker.contributors.slice(0, 8).map((c) => [`\`${c.name}\``, kb(c.bytes)]),
    ),
    '',
    `Cold initialization: ${n} fresh node processes per bundle, interleaved, each importing the shipped bundle (the AWS SDK loaded from \`node_modules\`, as Lambda loads its runtime's from disk) and handling one real SQS event (one task) against the emulator. Times from the process's start, ms, median (min–max):`,
    '',
    table(
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
  ].join('\n');
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
  return [
    '## 6. Scaling',
    '',
    'Per-task time at each size (ms per task, median (min–max)); the peak resident set size (`process.resourceUsage().maxRSS`, MB) of the consumer process, which runs alone in its own node process; and the heap it still held after a full garbage collection at the end of the run (MB), which separates what a process keeps from what V8 has not yet collected.',
    '',
    table(
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
    '',
    `From ${first} to ${last} tasks the median per-task processing time changes by ${pct(drift(rows, (r) => r.process.tasklane))} for Tasklane and ${pct(drift(rows, (r) => r.process.baseline))} for the raw loop; the per-task enqueue time by ${pct(drift(rows, (r) => r.enqueue.tasklane))} and ${pct(drift(rows, (r) => r.enqueue.baseline))}. The worker's peak RSS changes by ${pct(drift(rows, (r) => r.rss.tasklane))} (raw loop: ${pct(drift(rows, (r) => r.rss.baseline))}), its heap after a full collection by ${pct(drift(rows, (r) => r.heap.tasklane))} (raw loop: ${pct(drift(rows, (r) => r.heap.baseline))}).`,
    ...(chart === undefined
      ? []
      : ['', `![Per-task time and consumer memory by number of tasks](${chart})`]),
  ].join('\n');
}
