/** Section 3 of the report: AWS requests per task, measured against the paper floor. */
import { type FloorCase, type FloorLine, powertoolsFloor, tasklaneFloor } from '../lib/floor.js';
import type { Tally } from '../lib/request-counter.js';
import { retriedCost, successfulCost, type TaskCost } from './analysis.js';
import { num, table } from './markdown.js';
import type { BenchResults } from './results.js';
import { dynamodbWrites, requests } from './tallies.js';

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
      'DynamoDB write units, status index',
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
  return [
    '## 3. AWS requests per task',
    '',
    `Every SDK call of every client (producer, worker, poller) is counted by a middleware in the SDK's \`deserialize\` step, inside the retry middleware, so a retried call counts once per attempt. Figures are per task, medians of ${results.profile.reps} repetitions. "Floor" is the count derived on paper below, at batch size ${b}. One-off start-up calls (\`GetQueueAttributes\`, \`GetQueueUrl\`) and receives that came back empty are left out of the totals; the empty ones are idle polling, which a Lambda event source mapping does on its own schedule whatever the number of tasks (the local stand-in long-polls 1 s, Lambda 20 s).`,
    '',
    `### Per successful task (${n} tasks per run)`,
    '',
    perTaskTable(
      'successful',
      b,
      successfulCost(results, 'tasklane'),
      successfulCost(results, 'powertools'),
    ),
    '',
    `### Per retried task (${results.retries.tasks} tasks per run, each failing once, then succeeding)`,
    '',
    perTaskTable(
      'retried',
      b,
      retriedCost(results, 'tasklane'),
      retriedCost(results, 'powertools'),
    ),
    '',
    '### Per delayed task',
    '',
    'Delayed tasks (EventBridge Scheduler delivery, docs/design.md §4) are not built yet, so there is nothing to measure: the table shows the floor of the design. The Powertools baseline has no delayed delivery (SQS FIFO queues do not support per-message delays).',
    '',
    perTaskTable('delayed', b, undefined, undefined),
    '',
    '### The floor, derived',
    '',
    `Per **successful** task at batch size ${b}, Tasklane needs:`,
    '',
    ...tFloor.map((l) => `- \`${l.key}\` ${num(l.perTask)}: ${l.why}.`),
    '',
    `That is 4 DynamoDB writes (create, markSent, claim, complete), 1 strongly consistent read and 3/${b} SQS requests: ${num(
      tFloor.filter((l) => !NOT_REQUESTS(l.key)).reduce((s, l) => s + l.perTask, 0),
    )} requests. Each write is one conditional \`UpdateItem\`/\`PutItem\` as docs/design.md §2 requires. Every transition also rewrites the status index key (\`statusShard\`, \`statusAt\`), and the index projects ALL attributes: a \`PutItem\` writes the index once, each \`UpdateItem\` twice (delete the old entry, put the new one), so one task costs 4 table write units and 7 index write units while the item stays under 1 KB.`,
    '',
    `A **retried** task repeats the consumer's part: another read and claim, plus the \`retry\` write, and one \`ChangeMessageVisibilityBatch\` per ${b} failed messages, which brings the message back after the retry delay instead of the queue's visibility timeout. A **delayed** task (as designed) is created SCHEDULED, gets one one-time schedule, and EventBridge Scheduler sends its message unbatched; there is no \`markSent\`, because the claim accepts a due SCHEDULED task.`,
    '',
    `The **Powertools baseline** writes nothing at enqueue (it has no producer side) and keeps one idempotency record per message: a conditional \`PutItem\` (INPROGRESS) and an \`UpdateItem\` (COMPLETED), no read; a failed attempt deletes its record (\`DeleteItem\`) so the redelivery can run.`,
  ].join('\n');
}
