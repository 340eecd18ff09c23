/**
 * docs/capacity.md: which quota binds first at 1,000, 10,000 and 50,000 tasks a second,
 * what lifts it, and what the whole costs an hour, rendered from a run's recorded results
 * (the realistic scenario's measured units) and the documented quotas and list prices.
 */
import { ALTERNATIVES, ALTERNATIVES_AS_OF } from '../alternatives.js';
import type { CostBreakdown } from '../lib/cost.js';
import { LAMBDA_ASSUMPTIONS, PRICES } from '../prices.js';
import { HEADROOM, QUOTAS, type Quota, type QuotaId, TASKLANE_LIMITS } from '../quotas.js';
import {
  bindingFirst,
  busiestAction,
  type Compared,
  compare,
  DEFAULT_SETTINGS,
  indexCeiling,
  type LimitId,
  type LimitKind,
  type LimitUse,
  lambdaSecondsPerTask,
  limitsAt,
  type Plan,
  perHour,
  planFor,
  raisedBy,
  type TaskLoad,
  taskLoad,
} from './capacity-model.js';
import { num, table } from './markdown.js';
import type { BenchResults } from './results.js';
import { templateFile } from './template.js';

const capacityTemplate = templateFile('capacity.md');

/** The rates the model is computed for, tasks a second. */
export const RATES = [1_000, 10_000, 50_000] as const;

const rateHeader = (rate: number) => `${num(rate, 0)} tasks/s`;
const dollars = (x: number) => `$${num(x, x < 10 ? 2 : 0)}`;
const amount = (x: number) => num(x, x < 10 && !Number.isInteger(x) ? 1 : 0);
const pct = (x: number) => `${num(x * 100, 0)}%`;

const QUOTA_NAMES: Record<QuotaId, string> = {
  partitionWriteUnits: 'DynamoDB, one partition key value',
  tableWriteUnits: 'DynamoDB on-demand, table-level write throughput',
  newTableWriteUnits: 'DynamoDB on-demand, a new table before its first peak',
  fifoActionTps: 'SQS FIFO, without high-throughput mode (×10 messages with batches)',
  fifoHighThroughputActionTps: 'SQS FIFO, high-throughput mode (Tasklane’s queues)',
  fifoInFlight: 'SQS FIFO, in-flight messages',
  lambdaConcurrency: 'Lambda, account concurrency',
  lambdaScaling: 'Lambda, scaling rate',
  mappingConcurrency: 'Lambda SQS event source mapping, maximum concurrency',
  schedulerInvocations: 'EventBridge Scheduler, target invocations',
  schedulerCreates: 'EventBridge Scheduler, CreateSchedule',
  schedulerSchedules: 'EventBridge Scheduler, schedules',
};

const LIMITS: Record<LimitId, { name: string; lift: string }> = {
  indexKey: {
    name: 'Status index: write units/s on the busiest `status#shard` key',
    lift: '`statusShards` (up to 256; raise only)',
  },
  tableWrites: {
    name: 'Table write units/s (table-level quota)',
    lift: 'quota request',
  },
  indexWrites: {
    name: 'Status index write units/s (held to the same quota)',
    lift: 'quota request',
  },
  warmWrites: {
    name: 'Write units/s of a new table or index (warm throughput)',
    lift: 'pre-warm (warm throughput), or ramp up',
  },
  queueRequests: {
    name: 'SQS requests/s of the busiest action, per lane’s queue',
    lift: '`lanes` (a queue each)',
  },
  inFlight: {
    name: 'SQS in-flight messages per lane’s queue',
    lift: '`lanes`',
  },
  mappingConcurrency: {
    name: 'Concurrent invocations per lane (`maxConcurrency`)',
    lift: '`maxConcurrency` (up to 1,000), then `lanes`',
  },
  lambdaConcurrency: {
    name: 'Lambda concurrent executions, account',
    lift: 'quota request; `reservedConcurrency`',
  },
};

function loadTable(s: TaskLoad, r: TaskLoad): string {
  const actions = [...new Set([...Object.keys(s.sqsByAction), ...Object.keys(r.sqsByAction)])];
  const row = (label: string, pick: (l: TaskLoad) => number, decimals = 2) => [
    label,
    num(pick(s), decimals),
    num(pick(r), decimals),
  ];
  return table(
    ['Per task', 'Successful', 'Retried once'],
    [
      row('DynamoDB write units, table', (l) => l.tableWriteUnits),
      row('DynamoDB write units, status index', (l) => l.indexWriteUnits),
      [
        'of which on the busiest status’s keys',
        `${num(s.busiestUnits)} (${s.busiestStatus ?? 'none'})`,
        `${num(r.busiestUnits)} (${r.busiestStatus ?? 'none'})`,
      ],
      row('DynamoDB read units', (l) => l.readUnits),
      ...actions.sort().map((a) => row(`SQS \`${a}\` requests`, (l) => l.sqsByAction[a] ?? 0)),
      row('Lambda invocations', (l) => l.invocations),
      row('Lambda seconds (stated duration)', (l) => lambdaSecondsPerTask(l), 3),
      row('Dollars per million tasks', (l) => l.cost.total),
    ],
  );
}

function quotaTable(): string {
  const ids = Object.keys(QUOTA_NAMES) as QuotaId[];
  return table(
    ['Quota', `Default (${QUOTAS.region})`, 'Adjustable', 'Source'],
    ids.map((id) => {
      const q: Quota = QUOTAS[id];
      return [
        QUOTA_NAMES[id],
        `${num(q.value, 0)} ${q.unit}`,
        q.adjustable ? 'yes' : 'no',
        q.source,
      ];
    }),
  );
}

function limitsTable(load: TaskLoad): string {
  const perRate = RATES.map((rate) => limitsAt(rate, load, DEFAULT_SETTINGS));
  const rows = (perRate[0] ?? []).map((u, i) => [
    LIMITS[u.id].name,
    amount(u.limit),
    ...perRate.map((uses) => {
      const x = uses[i] as LimitUse;
      return `${amount(x.need)} (${pct(x.use)})`;
    }),
    LIMITS[u.id].lift,
  ]);
  const first = (label: string, kinds: readonly LimitKind[]) => [
    label,
    '',
    ...perRate.map((uses) =>
      bindingFirst(uses, kinds)
        .map((u) => `${LIMITS[u.id].name} (${pct(u.use)})`)
        .join('; '),
    ),
    '',
  ];
  rows.push(
    first('**Binds first: an AWS quota**', ['quota']),
    first('**Binds first: a Tasklane setting**', ['setting']),
    first('**A new table’s first peak**', ['ramp']),
  );
  return table(['Limit', 'Default', ...RATES.map(rateHeader), 'Lifted by'], rows);
}

function planTable(load: TaskLoad): string {
  const plans: Plan[] = RATES.map((rate) => planFor(rate, load));
  const ask = (x: number | undefined, unit: string) =>
    x === undefined ? 'default' : `${num(x, 0)} ${unit}`;
  const busiest = (rate: number, plan: Plan) => {
    const uses = limitsAt(rate, load, plan.settings, raisedBy(plan));
    const top = bindingFirst(uses)[0] as LimitUse;
    return `${pct(top.use)}: ${LIMITS[top.id].name}`;
  };
  return table(
    ['Setting', ...RATES.map(rateHeader)],
    [
      ['`statusShards`', ...plans.map((p) => String(p.settings.shards))],
      ['`lanes` (the default one included)', ...plans.map((p) => String(p.settings.lanes))],
      ['`maxConcurrency` per lane', ...plans.map((p) => num(p.settings.maxConcurrency, 0))],
      ['Table-level write quota', ...plans.map((p) => ask(p.tableWriteUnits, 'units/s'))],
      ['The same quota, for the index', ...plans.map((p) => ask(p.indexWriteUnits, 'units/s'))],
      ['Warm throughput (pre-warm to)', ...plans.map((p) => ask(p.warmWriteUnits, 'units/s'))],
      ['Lambda concurrency quota', ...plans.map((p) => ask(p.lambdaConcurrency, 'executions'))],
      [
        'Busiest limit with these settings',
        ...RATES.map((rate, i) => busiest(rate, plans[i] as Plan)),
      ],
      ['Within Tasklane’s bounds', ...plans.map((p) => (p.beyondBounds ? 'no' : 'yes'))],
    ],
  );
}

const COST_LINES: readonly [string, keyof CostBreakdown][] = [
  ['SQS requests', 'sqs'],
  ['DynamoDB write units', 'dynamodbWrites'],
  ['DynamoDB read units', 'dynamodbReads'],
  ['Lambda requests', 'lambdaRequests'],
  ['Lambda compute (GB-s)', 'lambdaCompute'],
];

function costTable(s: TaskLoad, r: TaskLoad): string {
  const row = (label: string, perMillion: number) => [
    label,
    dollars(perMillion),
    ...RATES.map((rate) => dollars(perHour(perMillion, rate))),
  ];
  return table(
    ['Item', 'Per million tasks', ...RATES.map((rate) => `Per hour at ${rateHeader(rate)}`)],
    [
      ...COST_LINES.map(([label, key]) => row(label, s.cost[key])),
      row('**Total, successful tasks**', s.cost.total),
      row('Total if every task is retried once', r.cost.total),
    ],
  );
}

function compareTable(s: TaskLoad, r: TaskLoad): string {
  return table(
    [
      'System',
      'Per million successful',
      'Per million retried once',
      ...RATES.map((rate) => `Per hour at ${rateHeader(rate)}`),
    ],
    compare(s, r).map((c) => [
      c.name,
      dollars(c.successful),
      dollars(c.retried),
      ...RATES.map((rate) => dollars(perHour(c.successful, rate))),
    ]),
  );
}

function assumptions(): string {
  return ALTERNATIVES.map((a) => {
    const needs = RATES.map((rate) => num(rate * a.shape.perTask, 0)).join(', ');
    return `- **${a.name}**: $${num(a.perMillionUnits, 2)} per million ${a.unit}; ${a.shape.assumption}. These rates take ${needs} ${a.unit} a second. Throughput: ${a.throughput}. Sources: ${a.sources.join(', ')}.`;
  }).join('\n');
}

/** "never at 1,000 tasks/s; above 10% of tasks at 10,000 tasks/s; …" */
function delayedShare(): string {
  return RATES.map((rate) => {
    const share = QUOTAS.schedulerInvocations.value / rate;
    return share >= 1
      ? `never at ${rateHeader(rate)}`
      : `above ${pct(share)} of the tasks at ${rateHeader(rate)}`;
  }).join('; ');
}

/** One line per rate: what binds, what lifts it, and the hourly cost beside the others'. */
function summary(s: TaskLoad, r: TaskLoad): string {
  const compared = compare(s, r);
  return RATES.map((rate) => {
    const uses = limitsAt(rate, s, DEFAULT_SETTINGS);
    const quota = bindingFirst(uses, ['quota'])[0] as LimitUse;
    const setting = bindingFirst(uses, ['setting'])[0] as LimitUse;
    const plan = planFor(rate, s);
    const requests = [
      plan.tableWriteUnits === undefined && plan.indexWriteUnits === undefined
        ? undefined
        : 'the table-level write quota',
      plan.lambdaConcurrency === undefined ? undefined : 'Lambda concurrency',
    ].filter((x) => x !== undefined);
    const others = compared
      .slice(1)
      .map((c) => `${c.name} ${dollars(perHour(c.successful, rate))}`)
      .join(', ');
    const line = [
      `- **${rateHeader(rate)}**: nearest its limit among the AWS quotas is ${lower(LIMITS[quota.id].name)}, at ${pct(quota.use)} of its limit; \`maxConcurrency\` is at ${pct(setting.use)} of its default.`,
      `With \`statusShards: ${plan.settings.shards}\`, ${plan.settings.lanes === 1 ? 'one lane' : `${plan.settings.lanes} lanes`} of \`maxConcurrency: ${plan.settings.maxConcurrency}\`${requests.length === 0 ? '' : `, a request for ${requests.join(' and ')}`} and a new table pre-warmed, every limit keeps half free.`,
      `${dollars(perHour((compared[0] as Compared).successful, rate))} an hour at list prices (${others}).`,
    ];
    return line.join(' ');
  }).join('\n');
}

const lower = (text: string) => `${text.charAt(0).toLowerCase()}${text.slice(1)}`;

/** docs/capacity.md for a run's results. */
export function renderCapacity(results: BenchResults): string {
  const realistic = results.realistic;
  if (realistic === undefined) return `${capacityTemplate('missing')}\n`;
  const s = taskLoad(realistic.successful);
  const r = taskLoad(realistic.retried);
  const concurrency = (rate: number) => rate * lambdaSecondsPerTask(s);
  return `${capacityTemplate('page', {
    date: results.date,
    tasks: realistic.tasks,
    summary: summary(s, r),
    loadTable: loadTable(s, r),
    memoryMb: LAMBDA_ASSUMPTIONS.memoryMb,
    durationMs: LAMBDA_ASSUMPTIONS.durationMsPerInvocation,
    batchSize: results.profile.batchSize,
    quotasAsOf: QUOTAS.asOf,
    quotaTable: quotaTable(),
    busiestStatus: s.busiestStatus ?? 'none',
    busiestUnits: num(s.busiestUnits),
    defaultShards: TASKLANE_LIMITS.defaultShards,
    ceilingDefault: num(indexCeiling(s, TASKLANE_LIMITS.defaultShards), 0),
    maxShards: TASKLANE_LIMITS.maxShards,
    ceilingMax: num(indexCeiling(s, TASKLANE_LIMITS.maxShards), 0),
    busiestAction: busiestAction(s).action,
    busiestActionPerTask: num(busiestAction(s).perTask),
    limitsTable: limitsTable(s),
    headroomShare: pct(1 - 1 / HEADROOM),
    planTable: planTable(s),
    scaling: RATES.map(
      (rate) =>
        `${amount(concurrency(rate))} at ${rateHeader(rate)} (within ${num(Math.ceil(concurrency(rate) / QUOTAS.lambdaScaling.value) * 10, 0)} s)`,
    ).join(', '),
    delayedShare: delayedShare(),
    laneRate: num(TASKLANE_LIMITS.maxMaxConcurrency / HEADROOM / lambdaSecondsPerTask(s), 0),
    maxLanes: TASKLANE_LIMITS.maxLanes,
    accountRate: num(QUOTAS.lambdaConcurrency.value / HEADROOM / lambdaSecondsPerTask(s), 0),
    schedulerHours: num(
      QUOTAS.schedulerSchedules.value / QUOTAS.schedulerInvocations.value / 3600,
      1,
    ),
    scheduleThreshold: TASKLANE_LIMITS.scheduleThresholdSeconds,
    pricesAsOf: PRICES.asOf,
    costTable: costTable(s, r),
    alternativesAsOf: ALTERNATIVES_AS_OF,
    assumptions: assumptions(),
    compareTable: compareTable(s, r),
    computePerMillion: dollars(s.cost.lambdaCompute),
  })}\n`;
}
