/** The report's summary table and its discussion of every target. */
import { costPerMillion } from '../lib/cost.js';
import { pairedRatio, summarize } from '../lib/stats.js';
import {
  coldStart,
  enqueueAt,
  msPerRequest,
  processAt,
  runsOf,
  scaling,
  singleEnqueue,
  type TaskCost,
} from './analysis.js';
import { costRatio } from './cost-section.js';
import { kb, med, met, num, ratio, table, usd } from './markdown.js';
import type { BenchResults } from './results.js';
import { dynamodbWrites, requests, sendsAndDeletes } from './tallies.js';
import { type Headline, judgeTargets, type Target } from './targets.js';
import { templateFile } from './template.js';

const targetsTemplate = templateFile('targets.md');

/** The headline table. */
export function summaryTable(results: BenchResults, h: Headline): string {
  const { sizes, powertoolsSize } = results.throughput;
  const targets = new Map(judgeTargets(results, h).map((t) => [t.id, t]));
  const status = (id: Target['id']) => {
    const t = targets.get(id);
    return t === undefined ? ['', ''] : [t.threshold, met(t.met)];
  };
  const rows: string[][] = [];
  for (const n of sizes.slice(-2)) {
    const c = enqueueAt(results, n);
    rows.push([
      `Enqueue ${n} tasks (enqueueBatch vs raw SendMessageBatch), tasks/s`,
      med(c.tasklane, 0),
      med(c.baseline, 0),
      ratio(c.ratio),
      '',
      '',
    ]);
  }
  const single = singleEnqueue(results);
  rows.push([
    'Single enqueue vs raw SendMessage, ms per task',
    med(single.tasklane, 1),
    med(single.baseline, 1),
    ratio(single.ratio),
    '',
    '',
  ]);
  const e2e = processAt(results, h.largest);
  rows.push([
    `End to end, ${h.largest} no-op tasks vs raw loop, tasks/s`,
    med(e2e.tasklane, 0),
    med(e2e.baseline, 0),
    ratio(e2e.ratio),
    ...status('overhead'),
  ]);
  const pt = processAt(results, powertoolsSize, 'powertools');
  rows.push([
    `End to end, ${powertoolsSize} tasks vs Powertools, tasks/s`,
    med(pt.tasklane, 0),
    med(pt.baseline, 0),
    ratio(pt.ratio),
    '',
    '',
  ]);
  const t = h.tasklane.median.tally;
  const p = h.powertools.median.tally;
  const pairOf = (a: TaskCost, b: TaskCost, pick: (x: typeof t) => number) =>
    ratio(
      pairedRatio(
        a.runs.map((r) => pick(r.tally)),
        b.runs.map((r) => pick(r.tally)),
      ),
    );
  const pair = (pick: (x: typeof t) => number) => pairOf(h.tasklane, h.powertools, pick);
  rows.push([
    'AWS requests per successful task vs Powertools',
    num(requests(t)),
    num(requests(p)),
    pair((x) => requests(x)),
    ...status('requests'),
  ]);
  rows.push([
    'DynamoDB writes per successful task (Powertools beside)',
    num(dynamodbWrites(t)),
    num(dynamodbWrites(p)),
    pair(dynamodbWrites),
    ...status('writes'),
  ]);
  rows.push([
    'SQS sends + deletes per task (Powertools beside)',
    num(sendsAndDeletes(t)),
    num(sendsAndDeletes(p)),
    pair(sendsAndDeletes),
    ...status('batching'),
  ]);
  const tr = h.tasklaneRetried.median.tally;
  const pr = h.powertoolsRetried.median.tally;
  rows.push([
    'AWS requests per retried task vs Powertools',
    num(requests(tr)),
    num(requests(pr)),
    pairOf(h.tasklaneRetried, h.powertoolsRetried, (x) => requests(x)),
    '',
    '',
  ]);
  const cost = (c: typeof h.tasklane) =>
    costPerMillion({ tally: c.median.tally, lambdaInvocations: c.median.invocations }).total;
  rows.push([
    'Cost per million successful tasks vs Powertools',
    usd(cost(h.tasklane)),
    usd(cost(h.powertools)),
    ratio(costRatio(h.tasklane, h.powertools)),
    '',
    '',
  ]);
  const { worker, powertools } = results.pkg.bundles;
  rows.push([
    'Worker bundle as shipped (AWS SDK from the Lambda runtime) vs Powertools',
    kb(worker.bytes),
    kb(powertools.bytes),
    `${num(worker.bytes / powertools.bytes)}×`,
    ...status('bundle'),
  ]);
  const cold = coldStart(results, (c) => c.totalMs);
  rows.push([
    'Cold init, process start to one event handled, ms',
    med(cold.tasklane, 0),
    med(cold.baseline, 0),
    ratio(cold.ratio),
    ...status('coldInit'),
  ]);
  const pct = (x: number) => `${x >= 1 ? '+' : ''}${num((x - 1) * 100, 0)}%`;
  rows.push([
    `Per-task processing time, ${h.smallest} → ${h.largest} tasks (raw loop beside)`,
    pct(h.flat),
    pct(h.rawFlat),
    '',
    ...status('flat'),
  ]);
  rows.push([
    `Worker peak RSS, ${h.smallest} → ${h.largest} tasks`,
    pct(h.memory),
    '',
    '',
    ...status('memory'),
  ]);
  return table(
    ['Figure', 'Tasklane', 'Baseline', 'Ratio (Tasklane ÷ baseline)', 'Target', 'Status'],
    rows,
  );
}

const pctOf = (x: number) => `${x >= 1 ? '+' : ''}${num((x - 1) * 100, 0)}%`;

function coldInitWhy(results: BenchResults, h: Headline): string {
  const imported = coldStart(results, (c) => c.importMs);
  const handled = coldStart(results, (c) => c.handleMs);
  const { benchWorker, powertools } = results.pkg.bundles;
  const zod = benchWorker.contributors.find((c) => c.name === 'zod')?.bytes ?? 0;
  return targetsTemplate('coldInit', {
    verdict:
      h.coldInit.median <= 1
        ? targetsTemplate('coldInit-no-slower')
        : targetsTemplate('coldInit-slower', { change: pctOf(h.coldInit.median) }),
    importTasklane: med(imported.tasklane, 0),
    importBaseline: med(imported.baseline, 0),
    extraBytes: kb(benchWorker.bytes - powertools.bytes),
    zod: kb(zod),
    handleTasklane: med(handled.tasklane, 0),
    handleBaseline: med(handled.baseline, 0),
  });
}

function flatWhy(results: BenchResults, h: Headline): string {
  const rows = scaling(results);
  const first = rows[0]?.process.tasklane;
  const last = rows[rows.length - 1]?.process.tasklane;
  const overlap =
    first !== undefined && last !== undefined && last.min <= first.max && first.min <= last.max;
  return targetsTemplate('flat', {
    tasklane: pctOf(h.flat),
    smallest: h.smallest,
    largest: h.largest,
    raw: pctOf(h.rawFlat),
    spread: overlap
      ? targetsTemplate('flat-overlap', {
          first: med(first, 1),
          smallest: h.smallest,
          last: med(last, 1),
          largest: h.largest,
        })
      : targetsTemplate('flat-apart'),
    cause: targetsTemplate(h.flat < 1 ? 'flat-falling' : 'flat-rising'),
  });
}

function memoryWhy(results: BenchResults, h: Headline): string {
  const rows = scaling(results);
  const heap = (i: number) => `${num(rows[i]?.heap.tasklane.median ?? 0, 1)} MB`;
  return targetsTemplate('memory', {
    memory: pctOf(h.memory),
    rawMemory: pctOf(h.rawMemory),
    retained: pctOf(h.retained),
    heapFirst: heap(0),
    heapLast: heap(rows.length - 1),
    verdict: targetsTemplate(Math.abs(h.retained - 1) > 0.2 ? 'memory-grows' : 'memory-flat'),
  });
}

/** Why each target came out as it did, and what a missed one would take. */
export function targetsSection(results: BenchResults, h: Headline): string {
  const targets = judgeTargets(results, h);
  const t = h.tasklane.median.tally;
  const largestRuns = runsOf(results, 'tasklane', h.largest);
  const rawRuns = runsOf(results, 'raw', h.largest);
  const { worker, workerSdkBundled } = results.pkg.bundles;
  const zod = worker.contributors.find((c) => c.name === 'zod')?.bytes ?? 0;
  const write = 0.625;
  const consumerDynamodb = summarize(
    largestRuns.map((r) => requests(r.consumer.tally, 'DynamoDB') / h.largest),
  ).median;
  const why: Record<Target['id'], () => string> = {
    overhead: () =>
      targetsTemplate('overhead', {
        consumerDynamodb: num(consumerDynamodb),
        tasklaneMsPerRequest: med(msPerRequest(largestRuns), 1),
        rawMsPerRequest: med(msPerRequest(rawRuns), 1),
      }),
    writes: () => targetsTemplate('writes', { saving: num(3 * write, 3) }),
    batching: () =>
      targetsTemplate('batching', {
        batchSize: results.profile.batchSize,
        receives: num(t['SQS.ReceiveMessage']?.requests ?? 0),
      }),
    requests: () =>
      targetsTemplate('requests', {
        reduced: num(requests(t) - 2),
        powertools: num(requests(h.powertools.median.tally)),
      }),
    bundle: () =>
      targetsTemplate('bundle', {
        worker: kb(worker.bytes),
        zod: kb(zod),
        sdkBundled: kb(workerSdkBundled.bytes),
      }),
    coldInit: () => coldInitWhy(results, h),
    flat: () => flatWhy(results, h),
    memory: () => memoryWhy(results, h),
  };
  return targetsTemplate('section', {
    items: targets
      .map((target) =>
        targetsTemplate('item', {
          name: target.name,
          value: target.value,
          threshold: target.threshold,
          outcome: target.met ? 'met' : 'missed',
          why: why[target.id](),
        }),
      )
      .join('\n'),
  });
}
