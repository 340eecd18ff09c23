import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DURABLE_OPERATIONS, operationCosts, waitSummary } from '../report/durable-operations.js';
import type { BenchResults } from '../report/results.js';
import type { FeatureRun } from '../scenarios/features.js';
import { FEATURE_SCENARIOS } from '../scenarios/features.js';
import type { MeasuredTasks } from '../scenarios/measure-tasks.js';

function tally(requests: number, writeUnits = 0, readUnits = 0) {
  return { requests, billedRequests: requests, writeUnits, indexWriteUnits: 0, readUnits };
}

function run(id: string, measured: Partial<MeasuredTasks>): FeatureRun {
  return {
    id,
    name: id,
    measured: {
      tasks: 10,
      produced: {},
      consumed: {},
      invocations: 1,
      indexUnitsByPartition: {},
      indexWritesByPartition: {},
      metered: {
        producerRequests: 0,
        workerRequests: 0,
        workerWriteUnits: 0,
        workerReadUnits: 0,
        workerTasks: 0,
      },
      ...measured,
    },
  };
}

describe('operationCosts', () => {
  it('is each row minus its base row, per task, by service', () => {
    const plain = run('plain', {
      produced: { 'DynamoDB.PutItem': tally(10, 10) },
      consumed: { 'DynamoDB.UpdateItem': tally(20, 20), 'SQS.ReceiveMessage': tally(1) },
    });
    const sleep = run('sleepScheduled', {
      produced: { 'DynamoDB.PutItem': tally(10, 10) },
      consumed: {
        'DynamoDB.UpdateItem': tally(40, 40),
        'DynamoDB.BatchGetItem': tally(10, 0, 1000),
        'SQS.ReceiveMessage': tally(2),
        'SQS.ReceiveMessage(empty)': tally(50),
        'Scheduler.CreateSchedule': tally(10),
      },
      invocations: 2,
    });

    const [cost] = operationCosts([plain, sleep]);

    expect(cost?.operation.id).toBe('sleepScheduled');
    expect(cost?.requests).toEqual({ SQS: 0.1, DynamoDB: 3, Scheduler: 1, S3: 0 });
    expect(cost?.writeUnits).toBe(2);
    expect(cost?.readUnits).toBe(100);
    expect(cost?.invocations).toBeCloseTo(0.1);
    // 2 write units, 100 read units, a tenth of an SQS request and of a Lambda invocation, and
    // one Scheduler invocation: at least the units and the schedule.
    expect(cost?.cost).toBeGreaterThan(2 * 0.625 + 100 * 0.125 + 1);
  });

  it('leaves out an operation whose row or base row was not measured', () => {
    expect(operationCosts([run('plain', {}), run('pauseSuspended', {})])).toEqual([]);
  });
});

describe('the recorded durable operations (docs/benchmarks/results.json)', () => {
  async function recorded(): Promise<readonly FeatureRun[]> {
    const results = JSON.parse(
      await readFile('docs/benchmarks/results.json', 'utf8'),
    ) as BenchResults;
    return results.features?.runs ?? [];
  }

  it('has a feature scenario and a recorded row for every durable operation', async () => {
    const runs = await recorded();
    for (const { id, base } of DURABLE_OPERATIONS) {
      expect(FEATURE_SCENARIOS.map((s) => s.id)).toContain(id);
      expect(runs.map((r) => r.id)).toContain(id);
      expect(runs.map((r) => r.id)).toContain(base);
    }
    expect(operationCosts(runs)).toHaveLength(DURABLE_OPERATIONS.length);
  });

  it('has sane figures: a few requests and units each, a schedule only for the long sleep', async () => {
    for (const cost of operationCosts(await recorded())) {
      const { id } = cost.operation;
      // Every operation writes something, and none costs a plain task's worth many times over.
      expect(cost.writeUnits, id).toBeGreaterThan(0);
      expect(cost.writeUnits, id).toBeLessThan(40);
      expect(cost.requests.DynamoDB, id).toBeGreaterThan(0);
      expect(cost.requests.DynamoDB, id).toBeLessThan(20);
      expect(cost.requests.SQS, id).toBeGreaterThan(-1);
      expect(cost.requests.SQS, id).toBeLessThan(10);
      expect(cost.requests.S3, id).toBe(0);
      expect(cost.requests.Scheduler, id).toBe(id === 'sleepScheduled' ? 1 : 0);
      // Reads are sized by the record (ADR 0047, 0048 amended): each wait here is its task's
      // first call, so a woken slice reads 2 step keys and a signal wait 1 signal key; a full
      // window of 100 would show as 100 units or more.
      expect(cost.readUnits, id).toBeGreaterThanOrEqual(0);
      expect(cost.readUnits, id).toBeLessThanOrEqual(10);
      expect(cost.invocations, id).toBeLessThan(2);
    }
  });

  it('shows that a wait sent nothing and invoked nothing while it waited', async () => {
    const runs = await recorded();
    const wait = waitSummary(runs);

    expect(wait?.scenarios).toBe(runs.filter((r) => r.measured.waitWindow).length);
    expect(wait?.scenarios).toBeGreaterThanOrEqual(5);
    expect(wait?.windowMs).toBeGreaterThanOrEqual(4_900);
    expect(wait?.tasks).toBeGreaterThan(0);
    expect(wait?.requests).toBe(0);
    expect(wait?.invocations).toBe(0);
  });
});
