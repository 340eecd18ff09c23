/**
 * The capacity model of docs/capacity.md: the per-task units a run measured, held against
 * the documented quotas at a given rate, and priced beside other orchestrators. Pure
 * arithmetic on the recorded results; the quotas are bench/quotas.ts, the prices
 * bench/prices.ts and bench/alternatives.ts.
 */
import { ALTERNATIVES, type Alternative } from '../alternatives.js';
import { type CostBreakdown, costPerMillion } from '../lib/cost.js';
import { LAMBDA_ASSUMPTIONS, PRICES } from '../prices.js';
import { HEADROOM, QUOTAS, type Quota, TASKLANE_LIMITS } from '../quotas.js';
import type { MeasuredTasks } from '../scenarios/measure-tasks.js';
import { ceilingOf, taskFigures } from './measured-figures.js';

/** What one task puts on each quota, as measured. */
export interface TaskLoad {
  readonly tableWriteUnits: number;
  readonly indexWriteUnits: number;
  readonly readUnits: number;
  /** The status whose `status#shard` keys take the most index write units per task. */
  readonly busiestStatus: string | undefined;
  /** Index write units per task on that status's keys, all shards together. */
  readonly busiestUnits: number;
  /** SQS requests per task, by API action. */
  readonly sqsByAction: Readonly<Record<string, number>>;
  readonly invocations: number;
  /** Dollars per million tasks, by line item. */
  readonly cost: CostBreakdown;
}

/** The per-task load of a measurement. */
export function taskLoad(m: MeasuredTasks): TaskLoad {
  const figures = taskFigures(m);
  const { load } = ceilingOf(m);
  const sqsByAction: Record<string, number> = {};
  for (const [key, tally] of Object.entries(figures.tally)) {
    if (key.startsWith('SQS.')) sqsByAction[key.slice(4)] = tally.requests;
  }
  return {
    tableWriteUnits: figures.tableWriteUnits,
    indexWriteUnits: figures.indexWriteUnits,
    readUnits: figures.readUnits,
    busiestStatus: load?.status,
    busiestUnits: load === undefined ? 0 : load.writesPerTask * load.unitsPerWrite,
    sqsByAction,
    invocations: figures.invocations,
    cost: costPerMillion({ tally: figures.tally, lambdaInvocations: figures.invocations }),
  };
}

/** The settings a deployment chooses: shards, lanes and each lane's mapping concurrency. */
export interface Settings {
  readonly shards: number;
  readonly lanes: number;
  readonly maxConcurrency: number;
}

/** Tasklane's defaults. */
export const DEFAULT_SETTINGS: Settings = {
  shards: TASKLANE_LIMITS.defaultShards,
  lanes: 1,
  maxConcurrency: TASKLANE_LIMITS.defaultMaxConcurrency,
};

/** The limits the model checks, in the order of the table. */
export type LimitId =
  | 'indexKey'
  | 'tableWrites'
  | 'indexWrites'
  | 'warmWrites'
  | 'queueRequests'
  | 'inFlight'
  | 'mappingConcurrency'
  | 'lambdaConcurrency';

/**
 * What sets a limit: an AWS quota, a Tasklane setting (bounded by AWS), or a new table's
 * first peak (warm throughput), which is a one-off ramp rather than a ceiling.
 */
export type LimitKind = 'quota' | 'setting' | 'ramp';

/** The kind of each limit. */
export const LIMIT_KINDS: Readonly<Record<LimitId, LimitKind>> = {
  indexKey: 'quota',
  tableWrites: 'quota',
  indexWrites: 'quota',
  warmWrites: 'ramp',
  queueRequests: 'quota',
  inFlight: 'quota',
  mappingConcurrency: 'setting',
  lambdaConcurrency: 'quota',
};

/** Limits raised above their defaults (quota requests, pre-warming), by id. */
export type Raised = Partial<Readonly<Record<LimitId, number>>>;

/** One limit at one rate: what the rate needs of it, and how much it allows. */
export interface LimitUse {
  readonly id: LimitId;
  readonly need: number;
  readonly limit: number;
  /** need ÷ limit. */
  readonly use: number;
}

/** Seconds of Lambda invocation per task, at the stated duration per invocation. */
export function lambdaSecondsPerTask(load: TaskLoad): number {
  return (load.invocations * LAMBDA_ASSUMPTIONS.durationMsPerInvocation) / 1000;
}

/** The busiest SQS action's requests per task, and its name. */
export function busiestAction(load: TaskLoad): { action: string; perTask: number } {
  let busiest = { action: 'none', perTask: 0 };
  for (const [action, perTask] of Object.entries(load.sqsByAction).sort(([a], [b]) =>
    a < b ? -1 : 1,
  )) {
    if (perTask > busiest.perTask) busiest = { action, perTask };
  }
  return busiest;
}

/**
 * Every limit's use at `rate` tasks a second, spread evenly over the lanes and shards, with
 * the defaults or the `raised` values.
 */
export function limitsAt(
  rate: number,
  load: TaskLoad,
  settings: Settings,
  raised: Raised = {},
): LimitUse[] {
  const concurrency = rate * lambdaSecondsPerTask(load);
  const perLane = (x: number) => x / settings.lanes;
  const rows: [LimitId, number, number][] = [
    ['indexKey', (rate * load.busiestUnits) / settings.shards, QUOTAS.partitionWriteUnits.value],
    ['tableWrites', rate * load.tableWriteUnits, QUOTAS.tableWriteUnits.value],
    ['indexWrites', rate * load.indexWriteUnits, QUOTAS.tableWriteUnits.value],
    [
      'warmWrites',
      rate * Math.max(load.tableWriteUnits, load.indexWriteUnits),
      QUOTAS.newTableWriteUnits.value,
    ],
    [
      'queueRequests',
      perLane(rate * busiestAction(load).perTask),
      QUOTAS.fifoHighThroughputActionTps.value,
    ],
    [
      'inFlight',
      perLane((rate * LAMBDA_ASSUMPTIONS.durationMsPerInvocation) / 1000),
      QUOTAS.fifoInFlight.value,
    ],
    ['mappingConcurrency', perLane(concurrency), settings.maxConcurrency],
    ['lambdaConcurrency', concurrency, QUOTAS.lambdaConcurrency.value],
  ];
  return rows.map(([id, need, quota]) => {
    const limit = raised[id] ?? quota;
    return { id, need, limit, use: need / limit };
  });
}

/** The limits of the given kinds that bind first: the highest use (ties all listed). */
export function bindingFirst(
  uses: readonly LimitUse[],
  kinds: readonly LimitKind[] = ['quota', 'setting', 'ramp'],
): LimitUse[] {
  const candidates = uses.filter((u) => kinds.includes(LIMIT_KINDS[u.id]));
  const top = Math.max(...candidates.map((u) => u.use));
  return candidates.filter((u) => u.use >= top * (1 - 1e-9));
}

/** What a rate needs: the settings and the quota requests that leave half of each limit free. */
export interface Plan {
  readonly settings: Settings;
  /** Quota values to ask AWS for, where the default is short; undefined where it suffices. */
  readonly tableWriteUnits: number | undefined;
  readonly indexWriteUnits: number | undefined;
  readonly warmWriteUnits: number | undefined;
  readonly lambdaConcurrency: number | undefined;
  /** True when the settings' bounds (256 shards, 10 lanes) cannot leave half free. */
  readonly beyondBounds: boolean;
}

const roundUp = (x: number, step: number) => Math.ceil(x / step) * step;

function request(need: number, quota: Quota): number | undefined {
  const wanted = HEADROOM * need;
  return wanted <= quota.value ? undefined : roundUp(wanted, 1_000);
}

/** The plan for `rate` tasks a second. */
export function planFor(rate: number, load: TaskLoad): Plan {
  const wantedShards = Math.ceil(
    (HEADROOM * rate * load.busiestUnits) / QUOTAS.partitionWriteUnits.value,
  );
  const shards = Math.min(
    Math.max(wantedShards, TASKLANE_LIMITS.defaultShards),
    TASKLANE_LIMITS.maxShards,
  );
  const concurrency = rate * lambdaSecondsPerTask(load);
  const wantedLanes = Math.max(
    1,
    Math.ceil((HEADROOM * concurrency) / TASKLANE_LIMITS.maxMaxConcurrency),
  );
  const lanes = Math.min(wantedLanes, TASKLANE_LIMITS.maxLanes);
  const maxConcurrency = Math.min(
    Math.max(Math.ceil((HEADROOM * concurrency) / lanes), TASKLANE_LIMITS.defaultMaxConcurrency),
    TASKLANE_LIMITS.maxMaxConcurrency,
  );
  return {
    settings: { shards, lanes, maxConcurrency },
    tableWriteUnits: request(rate * load.tableWriteUnits, QUOTAS.tableWriteUnits),
    indexWriteUnits: request(rate * load.indexWriteUnits, QUOTAS.tableWriteUnits),
    warmWriteUnits: request(
      rate * Math.max(load.tableWriteUnits, load.indexWriteUnits),
      QUOTAS.newTableWriteUnits,
    ),
    lambdaConcurrency: request(concurrency, QUOTAS.lambdaConcurrency),
    beyondBounds:
      wantedShards > TASKLANE_LIMITS.maxShards || wantedLanes > TASKLANE_LIMITS.maxLanes,
  };
}

/** The limits a plan raises, for {@link limitsAt}. */
export function raisedBy(plan: Plan): Raised {
  const raised: { -readonly [K in LimitId]?: number } = {};
  const set = (id: LimitId, value: number | undefined) => {
    if (value !== undefined) raised[id] = value;
  };
  set('tableWrites', plan.tableWriteUnits);
  set('indexWrites', plan.indexWriteUnits);
  set('warmWrites', plan.warmWriteUnits);
  set('lambdaConcurrency', plan.lambdaConcurrency);
  return raised;
}

/** The highest rate the status index carries at its most shards, from the measured units. */
export function indexCeiling(load: TaskLoad, shards: number): number {
  return load.busiestUnits <= 0
    ? Number.POSITIVE_INFINITY
    : (shards * QUOTAS.partitionWriteUnits.value) / load.busiestUnits;
}

/** Dollars an hour at `rate` tasks a second, from dollars per million tasks. */
export function perHour(perMillion: number, rate: number): number {
  return (perMillion * rate * 3600) / 1e6;
}

/** One system's dollars per million tasks, succeeding at once and after one retry. */
export interface Compared {
  readonly name: string;
  readonly successful: number;
  readonly retried: number;
  /** The part of `successful` that is the handler's Lambda compute (0 where not counted). */
  readonly compute: number;
}

function alternativeCost(a: Alternative, runs: 1 | 2, compute: number): number {
  const units = a.shape.perTask + (runs - 1) * a.shape.perRetry;
  const usage = units * a.perMillionUnits * (1 + a.planPercent / 100);
  const lambda = a.invokesLambdaPerTask ? runs * (PRICES.lambdaPerMillionRequests + compute) : 0;
  return usage + a.otherPerMillionTasks + lambda;
}

/** Tasklane (measured) first, then each alternative, in dollars per million tasks. */
export function compare(successful: TaskLoad, retried: TaskLoad): Compared[] {
  const compute = successful.cost.lambdaCompute;
  return [
    {
      name: 'Tasklane (measured)',
      successful: successful.cost.total,
      retried: retried.cost.total,
      compute,
    },
    ...ALTERNATIVES.map((a) => ({
      name: a.name,
      successful: alternativeCost(a, 1, compute),
      retried: alternativeCost(a, 2, compute),
      compute: a.invokesLambdaPerTask ? compute : 0,
    })),
  ];
}
