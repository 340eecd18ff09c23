/** Section 4 of the report: dollars per million tasks, from the counted requests. */
import { type CostBreakdown, costPerMillion, type PerTaskUsage } from '../lib/cost.js';
import { type FloorLine, tasklaneFloor } from '../lib/floor.js';
import type { Tally } from '../lib/request-counter.js';
import { pairedRatio, summarize } from '../lib/stats.js';
import { LAMBDA_ASSUMPTIONS, PRICES } from '../prices.js';
import { retriedCost, successfulCost, type TaskCost } from './analysis.js';
import { ratio, table, usd } from './markdown.js';
import type { BenchResults } from './results.js';
import type { PerTask } from './tallies.js';
import { templateFile } from './template.js';

const costTemplate = templateFile('cost.md');

function usage(perTask: PerTask): PerTaskUsage {
  return {
    tally: perTask.tally,
    lambdaInvocations: perTask.invocations,
    logBytes: perTask.logBytes,
  };
}

/** The floor as usage: items under 1 KB, Tasklane's status index rewritten on each write. */
export function floorUsage(lines: readonly FloorLine[]): PerTaskUsage {
  const tally: Tally = {};
  for (const line of lines) {
    if (!line.key.startsWith('SQS.') && !line.key.startsWith('DynamoDB.')) continue;
    const write = /PutItem|UpdateItem|DeleteItem/.test(line.key);
    tally[line.key] = {
      requests: line.perTask,
      billedRequests: line.perTask,
      writeUnits: write ? line.perTask : 0,
      indexWriteUnits: line.key.endsWith('PutItem')
        ? line.perTask
        : line.key.endsWith('UpdateItem')
          ? 2 * line.perTask
          : 0,
      readUnits: line.key.endsWith('GetItem') ? line.perTask : 0,
    };
  }
  const pick = (key: string) => lines.find((l) => l.key === key)?.perTask ?? 0;
  return {
    tally,
    lambdaInvocations: pick('Lambda.Invoke'),
    schedulerInvocations: pick('Scheduler.Invocation'),
  };
}

const ITEMS: readonly [string, keyof CostBreakdown][] = [
  ['SQS requests', 'sqs'],
  ['DynamoDB write units', 'dynamodbWrites'],
  ['DynamoDB read units', 'dynamodbReads'],
  ['Lambda requests', 'lambdaRequests'],
  ['Lambda compute (GB-s)', 'lambdaCompute'],
  ['EventBridge Scheduler', 'scheduler'],
  ['**Total**', 'total'],
];

/** Tasklane ÷ Powertools total cost, per paired repetition. */
export function costRatio(tasklane: TaskCost, powertools: TaskCost) {
  const totals = (cost: TaskCost) => cost.runs.map((r) => costPerMillion(usage(r)).total);
  return pairedRatio(totals(tasklane), totals(powertools));
}

/** The section's Markdown. */
export function costSection(results: BenchResults): string {
  const b = results.profile.batchSize;
  const tS = successfulCost(results, 'tasklane');
  const pS = successfulCost(results, 'powertools');
  const tR = retriedCost(results, 'tasklane');
  const pR = retriedCost(results, 'powertools');
  const columns = [tS, pS, tR, pR].map((c) => costPerMillion(usage(c.median)));
  const delayed = costPerMillion(floorUsage(tasklaneFloor('delayed', b)));
  const rows = ITEMS.map(([label, key]) => [
    label,
    ...columns.map((c) => usd(c[key])),
    usd(delayed[key]),
  ]);
  rows.push([
    'Ratio to Powertools (total)',
    ratio(costRatio(tS, pS)),
    '1×',
    ratio(costRatio(tR, pR)),
    '1×',
    'n/a',
  ]);
  rows.push(['CloudWatch Logs, beside the total', ...columns.map((c) => usd(c.logs)), 'not built']);
  const logBytes = summarize(tS.runs.map((r) => r.logBytes)).median;
  return costTemplate('section', {
    asOf: PRICES.asOf,
    sqs: PRICES.sqsFifoPerMillionRequests,
    writes: PRICES.dynamodbPerMillionWriteUnits,
    reads: PRICES.dynamodbPerMillionReadUnits,
    lambdaRequests: PRICES.lambdaPerMillionRequests,
    gbSecond: PRICES.lambdaPerGbSecondArm,
    scheduler: PRICES.schedulerPerMillionInvocations,
    memoryMb: LAMBDA_ASSUMPTIONS.memoryMb,
    architecture: LAMBDA_ASSUMPTIONS.architecture,
    durationMs: LAMBDA_ASSUMPTIONS.durationMsPerInvocation,
    batchSize: b,
    table: table(
      [
        'Per million tasks',
        'Tasklane, successful',
        'Powertools, successful',
        'Tasklane, retried',
        'Powertools, retried',
        'Tasklane, delayed (floor)',
      ],
      rows,
    ),
    logBytes: Math.round(logBytes),
    logsPerGb: PRICES.cloudwatchLogsPerGbIngested,
  });
}
