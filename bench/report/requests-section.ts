/** Section 3 of the report: AWS requests per task, measured against the paper floor. */
import { type FloorCase, type FloorLine, powertoolsFloor, tasklaneFloor } from '../lib/floor.js';
import type { Tally } from '../lib/request-counter.js';
import { retriedCost, successfulCost, type TaskCost } from './analysis.js';
import { num, table } from './markdown.js';
import type { BenchResults } from './results.js';
import { dynamodbWrites, requests } from './tallies.js';
import { templateFile } from './template.js';

const requestsTemplate = templateFile('requests.md');

const NOT_REQUESTS = (key: string) => key.startsWith('Lambda.') || key.startsWith('Scheduler.');

function floorOf(lines: readonly FloorLine[] | undefined, key: string): string {
  if (lines === undefined) return 'n/a';
  const line = lines.find((l) => l.key === key);
  return line === undefined ? '–' : num(line.perTask);
}

function measured(cost: TaskCost | undefined, pick: (t: Tally) => number): string {
  return cost === undefined ? 'not built' : num(pick(cost.median.tally));
}

function floorSum(lines: readonly FloorLine[] | undefined, keep: (key: string) => boolean): string {
  if (lines === undefined) return 'n/a';
  return num(lines.filter((l) => keep(l.key)).reduce((s, l) => s + l.perTask, 0));
}

function sqsBilled(tally: Tally): number {
  return Object.entries(tally)
    .filter(([key]) => key.startsWith('SQS.'))
    .reduce((sum, [, t]) => sum + t.billedRequests, 0);
}

/** One per-task table: measured and floor, for both systems. */
function perTaskTable(
  kind: FloorCase,
  b: number,
  tasklane: TaskCost | undefined,
  powertools: TaskCost | undefined,
): string {
  const tFloor = tasklaneFloor(kind, b);
  const pFloor = powertoolsFloor(kind, b);
  const keys = [
    ...new Set([
      ...Object.keys(tasklane?.median.tally ?? {}),
      ...Object.keys(powertools?.median.tally ?? {}),
      ...tFloor.map((l) => l.key),
      ...(pFloor ?? []).map((l) => l.key),
    ]),
  ]
    .filter((key) => !NOT_REQUESTS(key))
    .sort();
  const op = (key: string) => (t: Tally) => t[key]?.requests ?? 0;
  const rows = keys.map((key) => [
    `\`${key}\``,
    measured(tasklane, op(key)),
    floorOf(tFloor, key),
    measured(powertools, op(key)),
    floorOf(pFloor, key),
  ]);
  const isRequest = (key: string) => !NOT_REQUESTS(key);
  const isWrite = (key: string) => /^DynamoDB\.(PutItem|UpdateItem|DeleteItem)$/.test(key);
  const unit = (cost: TaskCost | undefined, pick: (t: Tally[string]) => number) =>
    measured(cost, (t) => Object.values(t).reduce((s, x) => s + pick(x), 0));
  rows.push(
    [
      '**AWS requests (SQS + DynamoDB)**',
      measured(tasklane, (t) => requests(t)),
      floorSum(tFloor, isRequest),
      measured(powertools, (t) => requests(t)),
      floorSum(pFloor, isRequest),
    ],
    [
      'DynamoDB write requests',
      measured(tasklane, dynamodbWrites),
      floorSum(tFloor, isWrite),
      measured(powertools, dynamodbWrites),
      floorSum(pFloor, isWrite),
    ],
    [
      'DynamoDB write units, table',
      unit(tasklane, (x) => x.writeUnits),
      '',
      unit(powertools, (x) => x.writeUnits),
      '',
    ],
    [
      'DynamoDB write units, status index (estimate¹)',
      unit(tasklane, (x) => x.indexWriteUnits),
      '',
      unit(powertools, (x) => x.indexWriteUnits),
      '',
    ],
    [
      'DynamoDB read units',
      unit(tasklane, (x) => x.readUnits),
      '',
      unit(powertools, (x) => x.readUnits),
      '',
    ],
    [
      'SQS billed requests (64 KB chunks)',
      measured(tasklane, (t) => sqsBilled(t)),
      '',
      measured(powertools, (t) => sqsBilled(t)),
      '',
    ],
  );
  rows.push(
    [
      'Lambda invocations',
      tasklane === undefined ? 'not built' : num(tasklane.median.invocations),
      floorOf(tFloor, 'Lambda.Invoke'),
      powertools === undefined ? 'not built' : num(powertools.median.invocations),
      floorOf(pFloor, 'Lambda.Invoke'),
    ],
    [
      'Idle receives (empty), not in the totals',
      tasklane === undefined ? 'not built' : num(tasklane.median.emptyReceives),
      '0',
      powertools === undefined ? 'not built' : num(powertools.median.emptyReceives),
      pFloor === undefined ? 'n/a' : '0',
    ],
  );
  return table(['Per task', 'Tasklane', 'Tasklane floor', 'Powertools', 'Powertools floor'], rows);
}

/** The section's Markdown. */
export function requestsSection(results: BenchResults): string {
  const b = results.profile.batchSize;
  const n = results.throughput.powertoolsSize;
  const tFloor = tasklaneFloor('successful', b);
  return requestsTemplate('section', {
    reps: results.profile.reps,
    batchSize: b,
    successfulTasks: n,
    successfulTable: perTaskTable(
      'successful',
      b,
      successfulCost(results, 'tasklane'),
      successfulCost(results, 'powertools'),
    ),
    retriedTasks: results.retries.tasks,
    retriedTable: perTaskTable(
      'retried',
      b,
      retriedCost(results, 'tasklane'),
      retriedCost(results, 'powertools'),
    ),
    delayedTable: perTaskTable('delayed', b, undefined, undefined),
    floorLines: tFloor
      .map((l) =>
        requestsTemplate('floor-line', { key: l.key, perTask: num(l.perTask), why: l.why }),
      )
      .join('\n'),
    floorRequests: num(
      tFloor.filter((l) => !NOT_REQUESTS(l.key)).reduce((s, l) => s + l.perTask, 0),
    ),
  });
}
