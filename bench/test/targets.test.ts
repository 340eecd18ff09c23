import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { judgeIssue29Targets } from '../report/issue29-targets.js';
import { meterAgreement, taskFigures } from '../report/measured-figures.js';
import type { BenchResults } from '../report/results.js';
import { headline, judgeTargets } from '../report/targets.js';
import { renderReport } from '../report/write.js';
import type { MeasuredTasks } from '../scenarios/measure-tasks.js';

/** The recorded run, with the realistic, feature and AWS-shaped parts of a quick run. */
async function withMeasured(): Promise<BenchResults> {
  const recorded = JSON.parse(await readFile('docs/benchmarks/results.json', 'utf8'));
  const measured = JSON.parse(await readFile('bench/test/fixtures/measured-quick.json', 'utf8'));
  return { ...recorded, ...measured } as BenchResults;
}

const op = (requests: number, writeUnits = 0, indexWriteUnits = 0, readUnits = 0) => ({
  requests,
  billedRequests: requests,
  writeUnits,
  indexWriteUnits,
  readUnits,
});

/** Ten tasks: a PutItem each, two batch sends, a claim and a completion each. */
const measured: MeasuredTasks = {
  tasks: 10,
  produced: { 'DynamoDB.PutItem': op(10, 10, 10), 'SQS.SendMessageBatch': op(1) },
  consumed: {
    'SQS.GetQueueAttributes': op(1),
    'SQS.ReceiveMessage': op(1),
    'SQS.ReceiveMessage(empty)': op(3),
    'DynamoDB.UpdateItem': op(20, 30, 40),
    'SQS.DeleteMessageBatch': op(1),
  },
  invocations: 1,
  indexUnitsByPartition: { 'PENDING#0': 20, 'RUNNING#0': 20, 'SUCCEEDED#0': 10 },
  indexWritesByPartition: { 'PENDING#0': 20, 'RUNNING#0': 20, 'SUCCEEDED#0': 10 },
  metered: {
    producerRequests: 11,
    workerRequests: 20,
    workerWriteUnits: 20,
    workerReadUnits: 0,
    workerTasks: 10,
  },
};

describe('taskFigures', () => {
  it('counts per task, leaving out idle receives and start-up calls', () => {
    const figures = taskFigures(measured);

    expect(figures.requests).toBeCloseTo(3.3);
    expect(figures.tableWriteUnits).toBeCloseTo(4);
    expect(figures.indexWriteUnits).toBeCloseTo(5);
    expect(figures.writeUnits).toBeCloseTo(9);
    expect(figures.readUnits).toBe(0);
    expect(figures.invocations).toBeCloseTo(0.1);
  });
});

describe('meterAgreement', () => {
  it("compares the meter with the requests producer and worker sent, not the mapping's", () => {
    const agreement = meterAgreement(measured);

    expect(agreement).toEqual({ counted: 31, metered: 31, difference: 0 });
  });
});

describe('judgeTargets', () => {
  it('leaves the realistic targets unjudged for a run that did not measure them', async () => {
    const recorded = JSON.parse(await readFile('docs/benchmarks/results.json', 'utf8'));
    const results = { ...recorded, realistic: undefined, awsShaped: undefined } as BenchResults;

    const targets = judgeTargets(results, headline(results));

    expect(targets.find((t) => t.id === 'writeUnits')?.met).toBeUndefined();
    expect(targets.find((t) => t.id === 'coldInit')?.met).toBeDefined();
  });

  it("judges all of issue 14's targets, and the restated 1.25× one, when the run has them", async () => {
    const results = await withMeasured();

    const targets = judgeTargets(results, headline(results));

    expect(targets.map((t) => t.id)).toEqual([
      'requests',
      'writeUnits',
      'readUnits',
      'costSuccessful',
      'costRetried',
      'enqueueBatch',
      'singleEnqueue',
      'endToEnd',
      'coldInit',
      'ceiling',
      'meter',
      'endToEndSlow',
    ]);
    expect(targets.every((t) => t.met !== undefined && t.value !== undefined)).toBe(true);
  });
});

describe('judgeIssue29Targets', () => {
  it('judges a retry’s write units, the bundle and every rate-limit kind the run measured', async () => {
    const results = await withMeasured();

    const targets = judgeIssue29Targets(results, headline(results));

    expect(targets.map((t) => t.id)).toEqual([
      'retryUnits',
      'bundle',
      'rateSlow',
      'rateFast',
      'rateFastEndToEnd',
    ]);
    const retried = headline(results).realistic;
    const units = (retried?.retried.writeUnits ?? 0) - (retried?.successful.writeUnits ?? 0);
    expect(targets[0]).toMatchObject({ value: `+${units.toFixed(2)}`, met: units <= 2 });
    expect(targets[1]?.met).toBe(results.pkg.bundles.worker.bytes <= 150 * 1024);
  });

  it('takes the worst of the one- and four-worker runs, and leaves a limit without runs unjudged', async () => {
    const results = await withMeasured();
    const run = (workers: number, grants: number[]) => ({
      limit: 5,
      intervalMs: 2_000,
      workers,
      mode: 'end-to-end' as const,
      tasks: grants.length,
      grants,
      starts: grants,
      bucketWrites: 0,
      deferrals: 0,
    });
    // Five grants in each of four 2 s intervals for one worker; four workers' third interval has four.
    const steady = [0, 1, 2, 3].flatMap((i) => [0, 1, 2, 3, 4].map((k) => i * 2_000 + k * 300));
    const short = steady.filter((t) => t !== 4_000);
    const only = { ...results, rateLimits: { runs: [run(1, steady), run(4, short)] } };

    const targets = judgeIssue29Targets(only, headline(only));

    expect(targets.find((t) => t.id === 'rateSlow')).toMatchObject({
      value: '80% of the limit',
      met: false,
    });
    expect(targets.find((t) => t.id === 'rateFast')).toMatchObject({ met: undefined });
  });
});

describe('renderReport with the realistic scenario', () => {
  it('fills every placeholder and explains every target', async () => {
    const results = await withMeasured();

    const report = renderReport(results, undefined);

    expect(report).not.toMatch(/\{\{|\}\}|<!--|not measured/);
    for (const heading of [
      '## 3. AWS-shaped mode',
      '## 4. A realistic task: the cost figures',
      '## 5. Feature costs',
    ]) {
      expect(report).toContain(heading);
    }
    expect(report).toContain('| Figure | Today (issue 14) | Target | Measured | Status |');
    expect(report).toContain('| Figure | Today (issue 29) | Target | Measured | Status |');
    expect(report).toContain('- **Targets (issue 29):**');
    expect(report).toMatch(/Rate-limited task/);
  });
});
