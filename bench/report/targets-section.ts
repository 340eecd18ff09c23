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
  const verdict =
    h.coldInit.median <= 1 ? 'No slower.' : `Slower by ${pctOf(h.coldInit.median)} at the median.`;
  return `${verdict} Both bundles are the shipped form and load the AWS SDK from \`node_modules\`, as Lambda loads its runtime's. Importing and initializing took ${med(imported.tasklane, 0)} ms against ${med(imported.baseline, 0)} ms: the Tasklane bundle is ${kb(benchWorker.bytes - powertools.bytes)} larger, ${kb(zod)} of it zod (the task schemas and the message envelope), and it creates SQS and DynamoDB clients and a Powertools logger where the baseline creates a DynamoDB client for its idempotency store. Handling the event took ${med(handled.tasklane, 0)} ms against ${med(handled.baseline, 0)} ms: Tasklane makes three DynamoDB requests (read, claim, complete) and logs two audit lines where Powertools makes two requests. What it would take: claiming without the read saves a round trip; \`zod/mini\` instead of zod would shrink the import. The spread between processes is wide on this shared 2-core machine; the ratio is per interleaved pair.`;
}

function flatWhy(results: BenchResults, h: Headline): string {
  const rows = scaling(results);
  const first = rows[0]?.process.tasklane;
  const last = rows[rows.length - 1]?.process.tasklane;
  const overlap =
    first !== undefined && last !== undefined && last.min <= first.max && first.min <= last.max;
  const spread = overlap
    ? `The ranges overlap (${med(first, 1)} ms at ${h.smallest} tasks, ${med(last, 1)} ms at ${h.largest}), so the change is within the run-to-run spread of this shared machine.`
    : 'The ranges do not overlap.';
  const cause =
    h.flat < 1
      ? 'Falling per-task time is fixed cost of a fresh consumer process (connections, JIT warm-up) spread over more tasks.'
      : "moto's SQS model still scans the whole queue on every receive and delete, so a longer queue costs more per call; the raw loop makes too few calls per task to show it.";
  return `Tasklane changed by ${pctOf(h.flat)} from ${h.smallest} to ${h.largest} tasks, the raw loop by ${pctOf(h.rawFlat)}. ${spread} ${cause} Tasklane's own work per task does not depend on N: one read and two conditional writes by key, and its share of the batch calls. \`--profile full\` runs the issue's 1k → 10k range.`;
}

function memoryWhy(results: BenchResults, h: Headline): string {
  const grows = Math.abs(h.retained - 1) > 0.2;
  const rows = scaling(results);
  const heap = (i: number) => `${num(rows[i]?.heap.tasklane.median ?? 0, 1)} MB`;
  return `Peak RSS changed by ${pctOf(h.memory)} (raw loop ${pctOf(h.rawMemory)}); the heap still in use after a full collection at the end changed by ${pctOf(h.retained)} (${heap(0)} → ${heap(rows.length - 1)}). ${
    grows
      ? 'The retained heap grows with N, so the worker keeps something per task: worth a look with a heap snapshot.'
      : 'The retained heap barely moves, so the worker keeps nothing per task (a small rise, far from proportional to N); the higher peak is V8 letting garbage accumulate longer before collecting it, bounded by its heap limit rather than by N. Judged strictly on peak RSS the target is missed; a Lambda worker handles one batch per invocation and would not see it.'
  }`;
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
  const why: Record<Target['id'], string> = {
    overhead: `A no-op task leaves only the executor's own work to time. Tasklane's consumer reads the record, claims it and completes it: ${num(consumerDynamodb)} DynamoDB requests per task on top of the batch calls the raw loop also makes. moto serves one request at a time (${med(msPerRequest(largestRuns), 1)} ms each for Tasklane's larger items and conditional expressions, ${med(msPerRequest(rawRuns), 1)} ms for the raw loop's SQS calls), so the ratio here is close to the ratio of request time. On AWS the worker runs the batch's message groups concurrently (up to 10), so a batch would pay about three sequential DynamoDB round trips more than the raw loop instead of thirty; still far above 1.25× for a task that does nothing. What it would take: (1) claim without the read: a claim conditioned on a claimable status that increments the attempt in its update expression, returning ALL_NEW (the record the worker needs) and ALL_OLD on refusal (which explains it) — one round trip less per task; (2) beyond that, the overhead of a durable claim and a fenced completion is the price of docs/design.md §1.3 and only shrinks relative to real work: with DynamoDB round trips of a few ms, tasks of about 100 ms or more would land under 1.25× (an estimate, not measured here).`,
    writes: `Four writes: create (PutItem), markSent, claim, complete. To reach three, drop markSent: the claim already accepts PENDING (docs/design.md §2), so QUEUED only tells the sweeper that the message went out; the sweeper could instead re-send a PENDING task once it is older than a grace period (its message is either in the queue, where deduplication and the claim make a second copy harmless, or lost). That saves 1 write request and 3 write units per task (table plus the status index's delete and put), about $${num(3 * write, 3)} per million tasks. Folding markSent into another write is not possible: the SQS send sits between the create and it. Separately, the status index costs 7 write units per task on top of the table's 4 (section 3): a sparse index that only keys PENDING and RUNNING tasks (what the sweeper queries) would cost 4 (put and delete twice), at the price of \`list()\` for the other statuses.`,
    batching: `SendMessageBatch and DeleteMessageBatch carry ${results.profile.batchSize} messages each; receives add another ${num(t['SQS.ReceiveMessage']?.requests ?? 0)} per task.`,
    requests: `Tasklane keeps a durable record from the moment of enqueue (identity forever, status, history, the outbox behind "no silent loss"), reads it before claiming, and fences the completion; the Powertools baseline keeps only a per-message idempotency record in the consumer. Dropping markSent and the read (above) would bring Tasklane to about ${num(requests(t) - 2)} requests per task, still above Powertools' ${num(requests(h.powertools.median.tally))}. Matching it would mean giving up the producer-side record (no get, wait, cancel or redrive, and producer idempotency only within SQS's 5-minute window), which docs/design.md §1.1–1.2 rule out. This target cannot be met without changing Tasklane's guarantees.`,
    bundle: `The construct leaves \`@aws-sdk/*\` to the Lambda Node.js runtime, which ships SDK v3, and zod is imported as a namespace (\`import * as z\`), so esbuild keeps only the parts used (ADR 0006). Of the ${kb(worker.bytes)}, zod is ${kb(zod)} (the example tasks' schemas and the message envelope); the rest is Powertools, Tasklane and small dependencies. With the SDK bundled in it would be ${kb(workerSdkBundled.bytes)}. The price is running the runtime's SDK version rather than the pinned one (ADR 0006 weighs it). Smaller still: \`zod/mini\`, at the cost of a less familiar API for task authors.`,
    coldInit: coldInitWhy(results, h),
    flat: flatWhy(results, h),
    memory: memoryWhy(results, h),
  };
  return [
    '## Targets',
    '',
    'Only the correctness checks gate a run; the targets are reported.',
    '',
    ...targets.map(
      (target) =>
        `- **${target.name}: ${target.value}, target ${target.threshold} — ${target.met ? 'met' : 'missed'}.** ${why[target.id]}`,
    ),
  ].join('\n');
}
