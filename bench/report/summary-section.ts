/** The report's summary table: each headline figure beside its baseline. */
import { costPerMillion } from '../lib/cost.js';
import { pairedRatio } from '../lib/stats.js';
import { coldStart, enqueueAt, processAt, singleEnqueue, type TaskCost } from './analysis.js';
import { costRatio } from './cost-section.js';
import { kb, med, num, ratio, table, usd } from './markdown.js';
import type { BenchResults } from './results.js';
import { dynamodbWrites, requests, sendsAndDeletes } from './tallies.js';
import type { Headline } from './targets.js';

/** The headline table: no-op runs on the emulator (section 4 has the realistic task). */
export function summaryTable(results: BenchResults, h: Headline): string {
  const { sizes, powertoolsSize } = results.throughput;
  const rows: string[][] = [];
  for (const n of sizes.slice(-2)) {
    const c = enqueueAt(results, n);
    rows.push([
      `Enqueue ${n} tasks (enqueueBatch vs raw SendMessageBatch), tasks/s`,
      med(c.tasklane, 0),
      med(c.baseline, 0),
      ratio(c.ratio),
    ]);
  }
  const single = singleEnqueue(results);
  rows.push([
    'Single enqueue vs raw SendMessage, ms per task',
    med(single.tasklane, 1),
    med(single.baseline, 1),
    ratio(single.ratio),
  ]);
  const e2e = processAt(results, h.largest);
  rows.push([
    `End to end, ${h.largest} no-op tasks vs raw loop, tasks/s`,
    med(e2e.tasklane, 0),
    med(e2e.baseline, 0),
    ratio(e2e.ratio),
  ]);
  const pt = processAt(results, powertoolsSize, 'powertools');
  rows.push([
    `End to end, ${powertoolsSize} tasks vs Powertools, tasks/s`,
    med(pt.tasklane, 0),
    med(pt.baseline, 0),
    ratio(pt.ratio),
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
    'AWS requests per successful no-op task vs Powertools',
    num(requests(t)),
    num(requests(p)),
    pair((x) => requests(x)),
  ]);
  rows.push([
    'DynamoDB writes per successful no-op task (Powertools beside)',
    num(dynamodbWrites(t)),
    num(dynamodbWrites(p)),
    pair(dynamodbWrites),
  ]);
  rows.push([
    'SQS sends + deletes per task (Powertools beside)',
    num(sendsAndDeletes(t)),
    num(sendsAndDeletes(p)),
    pair(sendsAndDeletes),
  ]);
  const tr = h.tasklaneRetried.median.tally;
  const pr = h.powertoolsRetried.median.tally;
  rows.push([
    'AWS requests per retried no-op task vs Powertools',
    num(requests(tr)),
    num(requests(pr)),
    pairOf(h.tasklaneRetried, h.powertoolsRetried, (x) => requests(x)),
  ]);
  const cost = (c: typeof h.tasklane) =>
    costPerMillion({ tally: c.median.tally, lambdaInvocations: c.median.invocations }).total;
  rows.push([
    'Cost per million successful no-op tasks vs Powertools',
    usd(cost(h.tasklane)),
    usd(cost(h.powertools)),
    ratio(costRatio(h.tasklane, h.powertools)),
  ]);
  const { worker, powertools } = results.pkg.bundles;
  rows.push([
    'Worker bundle as shipped (AWS SDK from the Lambda runtime) vs Powertools',
    kb(worker.bytes),
    kb(powertools.bytes),
    `${num(worker.bytes / powertools.bytes)}×`,
  ]);
  const cold = coldStart(results, (c) => c.totalMs);
  rows.push([
    'Cold init, process start to one event handled, ms',
    med(cold.tasklane, 0),
    med(cold.baseline, 0),
    ratio(cold.ratio),
  ]);
  const pct = (x: number) => `${x >= 1 ? '+' : ''}${num((x - 1) * 100, 0)}%`;
  rows.push([
    `Per-task processing time, ${h.smallest} → ${h.largest} tasks (raw loop beside)`,
    pct(h.flat),
    pct(h.rawFlat),
    '',
  ]);
  rows.push([
    `Worker peak RSS, ${h.smallest} → ${h.largest} tasks (raw loop beside)`,
    pct(h.memory),
    pct(h.rawMemory),
    '',
  ]);
  return table(['Figure', 'Tasklane', 'Baseline', 'Ratio (Tasklane ÷ baseline)'], rows);
}
