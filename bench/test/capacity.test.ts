import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { renderCapacity } from '../report/capacity.js';
import {
  bindingFirst,
  compare,
  DEFAULT_SETTINGS,
  limitsAt,
  perHour,
  planFor,
  raisedBy,
  type TaskLoad,
  taskLoad,
} from '../report/capacity-model.js';
import { taskFigures } from '../report/measured-figures.js';
import type { BenchResults } from '../report/results.js';

async function recordedRun(): Promise<BenchResults> {
  return JSON.parse(await readFile('docs/benchmarks/results.json', 'utf8')) as BenchResults;
}

function realisticOf(results: BenchResults): NonNullable<BenchResults['realistic']> {
  if (results.realistic === undefined)
    throw new Error('the recorded run has no realistic scenario');
  return results.realistic;
}

function recordedLoad(results: BenchResults): TaskLoad {
  return taskLoad(realisticOf(results).successful);
}

/** A task that writes 2 index units on its busiest status and takes 0.01 Lambda seconds. */
const LOAD: TaskLoad = {
  tableWriteUnits: 3,
  indexWriteUnits: 4,
  readUnits: 0,
  busiestStatus: 'PENDING',
  busiestUnits: 2,
  sqsByAction: { SendMessageBatch: 0.1, ReceiveMessage: 0.1, DeleteMessageBatch: 0.1 },
  invocations: 0.1,
  cost: {
    sqs: 0,
    dynamodbWrites: 0,
    dynamodbReads: 0,
    lambdaRequests: 0,
    lambdaCompute: 0,
    scheduler: 0,
    total: 0,
    logs: 0,
  },
};

describe('renderCapacity', () => {
  it('renders the committed docs/capacity.md from the committed results, byte for byte', async () => {
    const results = await recordedRun();

    const page = renderCapacity(results);

    expect(page).toBe(await readFile('docs/capacity.md', 'utf8'));
  });

  it('fills every placeholder and states each rate', async () => {
    const page = renderCapacity(await recordedRun());

    expect(page).not.toMatch(/\{\{|\}\}|<!--|NaN|Infinity|undefined/);
    for (const rate of ['1,000 tasks/s', '10,000 tasks/s', '50,000 tasks/s']) {
      expect(page).toContain(`**${rate}**`);
    }
  });

  it('says what is missing for results without the realistic scenario', async () => {
    const { realistic: _, ...older } = await recordedRun();

    const page = renderCapacity(older);

    expect(page).toContain('Not computed');
    expect(page).not.toContain('|');
  });
});

describe('the capacity model', () => {
  it('prices a task as the realistic scenario of BENCHMARKS.md does', async () => {
    const results = await recordedRun();
    const load = recordedLoad(results);

    const [tasklane] = compare(load, load);

    expect(tasklane?.successful).toBeCloseTo(taskFigures(realisticOf(results).successful).cost, 12);
  });

  it('spreads the busiest status over the shards: twice the shards, half the use per key', () => {
    const at8 = limitsAt(4_000, LOAD, DEFAULT_SETTINGS).find((u) => u.id === 'indexKey');
    const at16 = limitsAt(4_000, LOAD, { ...DEFAULT_SETTINGS, shards: 16 }).find(
      (u) => u.id === 'indexKey',
    );

    expect(at8?.need).toBe(1_000);
    expect(at8?.use).toBe(1);
    expect(at16?.use).toBe(0.5);
  });

  it('names the limit with the highest use first, among the kinds asked for', () => {
    const uses = limitsAt(10_000, LOAD, DEFAULT_SETTINGS);

    const quota = bindingFirst(uses, ['quota']);
    const setting = bindingFirst(uses, ['setting']);

    expect(quota.map((u) => u.id)).toEqual(['indexKey']);
    expect(quota[0]?.use).toBe(2.5);
    expect(setting.map((u) => u.id)).toEqual(['mappingConcurrency']);
    expect(setting[0]?.use).toBe(10);
  });

  it('plans settings and quota requests that leave half of every limit free', async () => {
    const load = recordedLoad(await recordedRun());
    for (const rate of [1_000, 10_000, 50_000]) {
      const plan = planFor(rate, load);

      const uses = limitsAt(rate, load, plan.settings, raisedBy(plan));

      expect(plan.beyondBounds).toBe(false);
      for (const use of uses) expect(use.use, `${use.id} at ${rate}/s`).toBeLessThanOrEqual(0.5);
    }
  });

  it('keeps the defaults where they suffice', () => {
    const plan = planFor(100, LOAD);

    expect(plan.settings).toEqual({ ...DEFAULT_SETTINGS, maxConcurrency: 10 });
    expect(plan.tableWriteUnits).toBeUndefined();
    expect(plan.lambdaConcurrency).toBeUndefined();
  });

  it('prices an hour from dollars per million tasks', () => {
    expect(perHour(5, 1_000)).toBe(18);
    expect(perHour(5, 50_000)).toBe(900);
  });
});
