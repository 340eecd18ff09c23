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
  return [
    '## 4. Cost per million tasks',
    '',
    `Computed from the per-task medians of section 3 at us-east-1 on-demand prices, without free tiers, from \`bench/prices.ts\` (prices as of ${PRICES.asOf}): SQS FIFO $${PRICES.sqsFifoPerMillionRequests} per million requests (each started 64 KB of payload billed as one), DynamoDB on-demand $${PRICES.dynamodbPerMillionWriteUnits} per million write units and $${PRICES.dynamodbPerMillionReadUnits} per million read units, Lambda $${PRICES.lambdaPerMillionRequests} per million requests plus $${PRICES.lambdaPerGbSecondArm} per GB-s (Arm), EventBridge Scheduler $${PRICES.schedulerPerMillionInvocations} per million invocations.`,
    '',
    `Stated Lambda configuration: ${LAMBDA_ASSUMPTIONS.memoryMb} MB, ${LAMBDA_ASSUMPTIONS.architecture}, ${LAMBDA_ASSUMPTIONS.durationMsPerInvocation} ms billed per invocation (a batch of ${b}) for both systems. That duration is an assumption: on moto every request waits behind one lock, so the measured invocation times (section 2) describe moto, not Lambda. Write units are counted per write from the item's size; Tasklane's writes also pay for the status index (section 3). Idle receives are left out.`,
    '',
    table(
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
    '',
    `The audit log is not in the issue's price list but is a real cost: Tasklane's producer and worker write ${Math.round(logBytes)} bytes of log lines per successful task (the Powertools baseline logs nothing), at $${PRICES.cloudwatchLogsPerGbIngested} per GB ingested.`,
  ].join('\n');
}
