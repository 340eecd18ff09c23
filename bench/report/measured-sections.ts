/**
 * Sections 3–5 of the report: the AWS-shaped mode, the realistic scenario (where the cost
 * figures come from) and the feature costs. Prose in templates/measured.md.
 */
import { costPerMillion } from '../lib/cost.js';
import { statusOfPartition } from '../lib/index-writes.js';
import { totalOf } from '../lib/request-counter.js';
import { pairedRatio, summarize } from '../lib/stats.js';
import type { TaskCost } from './analysis.js';
import { operationCosts, operationsTable, waitSummary } from './durable-operations.js';
import { med, num, ratio, table, usd } from './markdown.js';
import { type TaskFigures, taskFigures } from './measured-figures.js';
import type { BenchResults } from './results.js';
import { requests } from './tallies.js';
import type { Headline } from './targets.js';
import { operations } from './targets-section.js';
import { templateFile } from './template.js';

const measuredTemplate = templateFile('measured.md');

/** Section 3: the AWS-shaped mode. */
export function awsShapedSection(results: BenchResults): string {
  const a = results.awsShaped;
  if (a === undefined) return measuredTemplate('aws-shaped-missing');
  const row = (label: string, t: number[], r: number[], per: number) => [
    label,
    med(summarize(t.map((x) => x / per)), 1),
    med(summarize(r.map((x) => x / per)), 1),
    ratio(pairedRatio(t, r)),
  ];
  return measuredTemplate('aws-shaped', {
    dynamodbMs: a.shape.dynamodbMs,
    sqsMs: a.shape.sqsMs,
    jitter: Math.round(a.shape.jitter * 100),
    reps: a.batch.tasklane.length,
    batchSize: results.profile.batchSize,
    concurrency: results.profile.concurrency,
    table: table(
      ['Measurement', 'Tasklane, ms', 'Raw SDK, ms', 'Time ratio'],
      [
        row(
          `enqueueBatch of ${a.batchTasks} tasks vs SendMessageBatch by 10, whole batch`,
          a.batch.tasklane,
          a.batch.raw,
          1,
        ),
        row(
          `Single enqueue vs SendMessage, per call (${a.singleTasks} in sequence)`,
          a.single.tasklane,
          a.single.raw,
          a.singleTasks,
        ),
        row(
          `End to end, ${a.endToEndTasks} tasks with ${a.handlerMs} ms handlers vs the raw loop`,
          a.endToEnd.tasklane,
          a.endToEnd.raw,
          1,
        ),
      ],
    ),
  });
}

function baseline(c: TaskCost) {
  const t = c.median.tally;
  const units = totalOf(t, 'writeUnits') + totalOf(t, 'indexWriteUnits');
  return {
    requests: requests(t),
    writeUnits: units,
    readUnits: totalOf(t, 'readUnits'),
    cost: costPerMillion({ tally: t, lambdaInvocations: c.median.invocations }).total,
  };
}

function indexByStatus(results: BenchResults): string {
  const r = results.realistic;
  if (r === undefined) return '';
  const m = r.successful;
  const byStatus = new Map<string, { writes: number; units: number }>();
  for (const [partition, units] of Object.entries(m.indexUnitsByPartition)) {
    const status = statusOfPartition(partition);
    const entry = byStatus.get(status) ?? { writes: 0, units: 0 };
    entry.units += units;
    entry.writes += m.indexWritesByPartition[partition] ?? 0;
    byStatus.set(status, entry);
  }
  const rows = [...byStatus]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([status, e]) => [`\`${status}\``, num(e.writes / m.tasks), num(e.units / m.tasks)]);
  return rows.length === 0
    ? measuredTemplate('index-none')
    : table(['Index partition keys', 'Index writes per task', 'Index write units per task'], rows);
}

/** Section 4: the realistic scenario. */
export function realisticSection(results: BenchResults, h: Headline): string {
  const r = h.realistic;
  if (r === undefined || results.realistic === undefined)
    return measuredTemplate('realistic-missing');
  const pS = baseline(h.powertools);
  const pR = baseline(h.powertoolsRetried);
  const t = (f: TaskFigures) => [
    num(f.requests),
    num(f.tableWriteUnits),
    num(f.indexWriteUnits),
    num(f.writeUnits),
    num(f.readUnits),
    num(f.invocations),
    usd(f.cost),
  ];
  const p = (b: ReturnType<typeof baseline>, invocations: number) => [
    num(b.requests),
    num(b.writeUnits),
    '0.00',
    num(b.writeUnits),
    num(b.readUnits),
    num(invocations),
    usd(b.cost),
  ];
  const labels = [
    'AWS requests (SQS + DynamoDB)',
    'DynamoDB write units, table',
    'DynamoDB write units, status index',
    '**DynamoDB write units, total**',
    'DynamoDB read units',
    'Lambda invocations',
    '**Cost per million tasks**',
  ];
  const columns = [
    t(r.successful),
    p(pS, h.powertools.median.invocations),
    t(r.retried),
    p(pR, h.powertoolsRetried.median.invocations),
  ];
  const rows = labels.map((label, i) => [label, ...columns.map((c) => c[i] ?? '')]);
  rows.push([
    'Ratio to Powertools (cost)',
    `${num(r.costRatio)}×`,
    '1×',
    `${num(r.retriedCostRatio)}×`,
    '1×',
  ]);
  return measuredTemplate('realistic', {
    tasks: results.realistic.tasks,
    powertoolsSize: results.throughput.powertoolsSize,
    table: table(
      [
        'Per task',
        'Tasklane, successful',
        'Powertools, successful',
        'Tasklane, retried',
        'Powertools, retried',
      ],
      rows,
    ),
    successfulOperations: operations(r.successful, (x) => x.requests),
    retriedOperations: operations(r.retried, (x) => x.requests),
    indexTable: indexByStatus(results),
    counted: r.meter.counted,
    metered: r.meter.metered,
    difference: `${num(r.meter.difference * 100, 1)}%`,
  });
}

/** The feature rows of durable tasks (ADR 0047), explained below the table when measured. */
const DURABLE_ROWS = ['step', 'checkpoint', 'continue', 'replay'];

/** Section 5: the feature costs. */
export function featuresSection(results: BenchResults): string {
  const f = results.features;
  if (f === undefined || f.runs.length === 0) return measuredTemplate('features-missing');
  const figures = f.runs.map((run) => ({ run, figures: taskFigures(run.measured) }));
  const plain = figures[0]?.figures as TaskFigures;
  const diff = (x: number) => `${x >= 0 ? '+' : ''}${num(x)}`;
  const rows = figures.map(({ run, figures: x }) => [
    run.name,
    num(x.requests),
    diff(x.requests - plain.requests),
    num(x.writeUnits),
    diff(x.writeUnits - plain.writeUnits),
    num(x.readUnits),
    operations(x, (t) => t.requests),
  ]);
  const durable = DURABLE_ROWS.every((id) => f.runs.some((run) => run.id === id));
  const section = measuredTemplate('features', {
    tasks: f.tasks,
    table: table(
      [
        'Task',
        'Requests per task',
        'vs plain',
        'Write units per task',
        'vs plain',
        'Read units per task',
        'Requests by operation',
      ],
      rows,
    ),
  });
  const parts = [section];
  if (f.partial !== undefined) {
    parts.push(
      measuredTemplate('features-partial', {
        ids: f.partial.ids.map((id) => `\`${id}\``).join(', '),
        date: f.partial.date,
        fullDate: results.date,
      }).trim(),
    );
  }
  if (durable) parts.push(measuredTemplate('features-durable'));
  const waits = waitsBlock(f.runs);
  if (waits !== undefined) parts.push(waits);
  return parts.join('\n\n');
}

/** The durable operations on their own, when a run measured the waits (ADR 0048). */
function waitsBlock(runs: NonNullable<BenchResults['features']>['runs']): string | undefined {
  const wait = waitSummary(runs);
  if (wait === undefined) return undefined;
  const proof = measuredTemplate(
    wait.requests === 0 && wait.invocations === 0
      ? 'features-waits-proof'
      : 'features-waits-proof-failed',
    {
      scenarios: wait.scenarios,
      tasks: wait.tasks,
      windowSeconds: num(wait.windowMs / 1000, 1),
      requests: wait.requests,
      invocations: wait.invocations,
      idleReceives: wait.idleReceives,
    },
  );
  return measuredTemplate('features-waits', {
    table: operationsTable(operationCosts(runs)),
    waitProof: proof.trim(),
  });
}
