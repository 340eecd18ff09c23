/**
 * `npx tsx bench/cost-scenario.ts [--tasks N]`: the realistic scenario and the AWS-shaped
 * mode, measured apart from `npm run bench` (a few minutes; it starts its own moto). Prints
 * its figures and writes them to `.tasklane/cost-scenario.json`.
 *
 * - Realistic: 300-byte payloads and a Lambda-length worker id; requests, write and read
 *   units per task counted from item sizes (bench/lib/request-counter.ts), priced against the
 *   Powertools baseline of the recorded run (docs/benchmarks/results.json), and the run-time
 *   meter's own figures (docs/cost.md) beside the count.
 * - Producer speed: enqueueBatch of 1,000 and single enqueue against raw sends, on the
 *   emulator and AWS-shaped (bench/lib/latency.ts).
 * - End to end with 100 ms handlers, AWS-shaped: Tasklane's worker against the raw loop,
 *   both behind the local event source mapping with the same concurrency.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { awsClientConfig, sqsClientConfig } from '../src/aws-clients.js';
import {
  createWorker,
  noopMetrics,
  silentLogger,
  TaskClient,
  type TaskClientOptions,
  type TaskMetrics,
} from '../src/index.js';
import { runEventSourceMapping, type SqsLambdaHandler } from '../src/local/index.js';
import { addUsage, emptyUsage, type Usage } from '../src/observability/usage-meter.js';
import { INDEX_KEY_ATTRIBUTES } from './config.js';
import {
  LAMBDA_WORKER_ID,
  realisticPayload,
  realisticTask,
  slowTask,
} from './fixtures/realistic.js';
import { costPerMillion } from './lib/cost.js';
import { createExecutor, startBenchEmulator } from './lib/environment.js';
import { AWS_SHAPE, injectLatency } from './lib/latency.js';
import { RequestCounter, type Tally } from './lib/request-counter.js';
import { summarize } from './lib/stats.js';
import type { BenchResults } from './report/results.js';
import { perTask, requests } from './report/tallies.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
type Admin = { sqs: SQSClient; dynamodb: DynamoDBClient };
type Shape = 'emulator' | 'aws-shaped';

function clients(shape: Shape) {
  const counter = new RequestCounter(INDEX_KEY_ATTRIBUTES);
  const sqs = new SQSClient(sqsClientConfig());
  const dynamodb = new DynamoDBClient(awsClientConfig());
  for (const client of [sqs, dynamodb]) {
    counter.attach(client);
    if (shape === 'aws-shaped') injectLatency(client, AWS_SHAPE);
  }
  return {
    counter,
    sqs,
    dynamodb,
    /** A TaskClient for `location` on these counted (and, AWS-shaped, delayed) clients. */
    taskClient: (location: TaskClientOptions) =>
      new TaskClient({ ...location, sqs, dynamodb, logger: silentLogger }),
    destroy: () => {
      sqs.destroy();
      dynamodb.destroy();
    },
  };
}

function rawEntry(i: number, prefix: string) {
  const id = `${prefix}-${i}`;
  return {
    Id: String(i % 10),
    MessageBody: JSON.stringify({ id, type: 'bench.realistic', payload: realisticPayload(i) }),
    MessageGroupId: id,
    MessageDeduplicationId: id,
  };
}

/** Runs `handler` behind the local event source mapping until `n` messages are deleted. */
async function consume(
  sqs: SQSClient,
  queueUrl: string,
  n: number,
  handler: SqsLambdaHandler,
): Promise<{ ms: number; invocations: number }> {
  const controller = new AbortController();
  let deleted = 0;
  let invocations = 0;
  const start = performance.now();
  const deadline = setTimeout(() => controller.abort(), 600_000);
  await runEventSourceMapping({
    sqs,
    queueUrl,
    handler,
    signal: controller.signal,
    logger: silentLogger,
    batchSize: 10,
    maximumConcurrency: 2,
    waitTimeSeconds: 1,
    onBatch: (s) => {
      invocations += 1;
      deleted += s.deleted;
      if (deleted >= n) controller.abort();
    },
  });
  clearTimeout(deadline);
  return { ms: performance.now() - start, invocations };
}

/** Metrics that keep the worker's run-time usage. */
function usageRecorder(): TaskMetrics & { total: Usage; tasks: number } {
  const recorder = {
    ...noopMetrics,
    total: emptyUsage(),
    tasks: 0,
    usage: (_type: string, usage: Usage, tasks: number) => {
      addUsage(recorder.total, usage);
      recorder.tasks += tasks;
    },
  };
  return recorder;
}

/** The realistic scenario on the emulator: what each task costs, counted and metered. */
async function realistic(admin: Admin, n: number) {
  const executor = await createExecutor(admin, 'realistic');
  const c = clients('emulator');
  try {
    const client = c.taskClient(executor);
    const entries = Array.from({ length: n }, (_, i) => ({
      task: realisticTask,
      payload: realisticPayload(i),
    }));
    await client.enqueueBatch(entries);
    const produced = c.counter.snapshot();
    c.counter.reset();
    const metrics = usageRecorder();
    const worker = createWorker([realisticTask], {
      ...executor,
      sqs: c.sqs,
      dynamodb: c.dynamodb,
      logger: silentLogger,
      metrics,
      workerId: LAMBDA_WORKER_ID,
    });
    const run = await consume(
      c.sqs,
      executor.queueUrl,
      n,
      worker.lambdaHandler as SqsLambdaHandler,
    );
    const consumed = c.counter.snapshot();
    const tasklane = perTask(
      {
        enqueue: { ms: 0, tally: produced, sent: n, logBytes: 0 },
        consumer: { tally: consumed, invocations: run.invocations, logBytes: 0 },
      } as unknown as Parameters<typeof perTask>[0],
      n,
    );
    const meteredProducer = client.costReport();
    return { tasklane, produced, consumed, meteredProducer, meteredWorker: metrics, n };
  } finally {
    c.destroy();
    await executor.destroy();
  }
}

async function enqueueSpeed(admin: Admin, shape: Shape, batchTasks: number, singleTasks: number) {
  const out: Record<string, number> = {};
  for (const system of ['raw', 'tasklane'] as const) {
    const executor = await createExecutor(admin, `enq-${system}`);
    const c = clients(shape);
    try {
      const client = c.taskClient(executor);
      let start = performance.now();
      if (system === 'tasklane') {
        await client.enqueueBatch(
          Array.from({ length: batchTasks }, (_, i) => ({
            task: realisticTask,
            payload: realisticPayload(i),
          })),
        );
      } else {
        for (let i = 0; i < batchTasks; i += 10) {
          const entries = Array.from({ length: Math.min(10, batchTasks - i) }, (_, k) =>
            rawEntry(i + k, 'b'),
          );
          await c.sqs.send(
            new SendMessageBatchCommand({ QueueUrl: executor.queueUrl, Entries: entries }),
          );
        }
      }
      out[`${system}Batch`] = performance.now() - start;
      c.counter.reset();
      start = performance.now();
      for (let i = 0; i < singleTasks; i++) {
        if (system === 'tasklane') {
          await client.enqueue(realisticTask, realisticPayload(i), { id: `single-${i}` });
        } else {
          const { Id: _, ...entry } = rawEntry(i, 'single');
          await c.sqs.send(new SendMessageCommand({ QueueUrl: executor.queueUrl, ...entry }));
        }
      }
      out[`${system}Single`] = performance.now() - start;
      out[`${system}SingleRequests`] = requests(c.counter.snapshot()) / singleTasks;
    } finally {
      c.destroy();
      await executor.destroy();
    }
  }
  return {
    shape,
    batchTasks,
    singleTasks,
    ...out,
    batchRatio: (out.tasklaneBatch ?? 0) / (out.rawBatch ?? 1),
    singleRatio: (out.tasklaneSingle ?? 0) / (out.rawSingle ?? 1),
  };
}

/** End to end, AWS-shaped, 100 ms handlers: the executor against the raw loop. */
async function endToEnd(admin: Admin, n: number) {
  const out: Record<string, number> = {};
  for (const system of ['raw', 'tasklane'] as const) {
    const executor = await createExecutor(admin, `e2e-${system}`);
    const c = clients('aws-shaped');
    try {
      const client = c.taskClient(executor);
      const start = performance.now();
      let handler: SqsLambdaHandler;
      if (system === 'tasklane') {
        await client.enqueueBatch(
          Array.from({ length: n }, (_, i) => ({ task: slowTask, payload: realisticPayload(i) })),
        );
        const worker = createWorker([slowTask], {
          ...executor,
          sqs: c.sqs,
          dynamodb: c.dynamodb,
          logger: silentLogger,
          metrics: noopMetrics,
          workerId: LAMBDA_WORKER_ID,
        });
        handler = worker.lambdaHandler as SqsLambdaHandler;
      } else {
        for (let i = 0; i < n; i += 10) {
          const entries = Array.from({ length: Math.min(10, n - i) }, (_, k) =>
            rawEntry(i + k, 'e'),
          );
          await c.sqs.send(
            new SendMessageBatchCommand({ QueueUrl: executor.queueUrl, Entries: entries }),
          );
        }
        // The raw loop: each message's handler, the batch's groups at once, no record.
        handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
          await Promise.all(event.Records.map(() => new Promise((r) => setTimeout(r, 100))));
          return { batchItemFailures: [] };
        };
      }
      await consume(c.sqs, executor.queueUrl, n, handler);
      out[system] = performance.now() - start;
    } finally {
      c.destroy();
      await executor.destroy();
    }
  }
  return { n, ...out, ratio: (out.tasklane ?? 0) / (out.raw ?? 1) };
}

async function powertoolsBaseline() {
  const file = path.join(ROOT, 'docs', 'benchmarks', 'results.json');
  const results = JSON.parse(await readFile(file, 'utf8')) as BenchResults;
  const size = results.throughput.powertoolsSize;
  const runs = results.throughput.runs.powertools[size] ?? [];
  return runs.map((run) => perTask(run, size));
}

function units(tally: Tally) {
  const all = Object.entries(tally).filter(([k]) => k.startsWith('DynamoDB.'));
  return {
    writeUnits: all.reduce((s, [, t]) => s + t.writeUnits + t.indexWriteUnits, 0),
    readUnits: all.reduce((s, [, t]) => s + t.readUnits, 0),
  };
}

async function main() {
  const argv = process.argv.slice(2);
  const tasks = Number(argv[argv.indexOf('--tasks') + 1] ?? 200) || 200;
  const emulator = await startBenchEmulator();
  const admin = { sqs: new SQSClient(sqsClientConfig()), dynamodb: new DynamoDBClient({}) };
  try {
    const r = await realistic(admin, tasks);
    const pt = await powertoolsBaseline();
    const tasklaneCost = costPerMillion({
      tally: r.tasklane.tally,
      lambdaInvocations: r.tasklane.invocations,
    });
    const powertoolsCosts = pt.map(
      (p) => costPerMillion({ tally: p.tally, lambdaInvocations: p.invocations }).total,
    );
    const powertoolsCost = summarize(powertoolsCosts).median;
    const workerCounted = r.consumed;
    const meteredWorker = r.meteredWorker.total;
    const realisticFigures = {
      tasks: r.n,
      requestsPerTask: requests(r.tasklane.tally),
      ...units(r.tasklane.tally),
      costPerMillion: tasklaneCost.total,
      powertoolsCostPerMillion: powertoolsCost,
      costRatio: tasklaneCost.total / powertoolsCost,
      producer: {
        counted: requests(r.produced),
        metered: r.meteredProducer.usage.sqsRequests + r.meteredProducer.usage.dynamodbRequests,
        tasks: r.meteredProducer.tasks,
      },
      worker: {
        countedWithoutPoller:
          requests(workerCounted) -
          (workerCounted['SQS.ReceiveMessage']?.requests ?? 0) -
          (workerCounted['SQS.ReceiveMessage(empty)']?.requests ?? 0) -
          (workerCounted['SQS.DeleteMessageBatch']?.requests ?? 0) -
          (workerCounted['SQS.GetQueueAttributes']?.requests ?? 0),
        metered: meteredWorker.sqsRequests + meteredWorker.dynamodbRequests,
        meteredWriteUnits: meteredWorker.writeUnits,
        tasks: r.meteredWorker.tasks,
      },
      tally: r.tasklane.tally,
    };
    console.log('realistic', JSON.stringify(realisticFigures, null, 1));
    const speed = [
      await enqueueSpeed(admin, 'emulator', 1000, 30),
      await enqueueSpeed(admin, 'aws-shaped', 1000, 30),
    ];
    console.log('enqueue', JSON.stringify(speed, null, 1));
    const e2e = await endToEnd(admin, Math.min(tasks, 200));
    console.log('end to end (100 ms handlers, AWS-shaped)', JSON.stringify(e2e, null, 1));
    const output = path.join(ROOT, '.tasklane', 'cost-scenario.json');
    await mkdir(path.dirname(output), { recursive: true });
    await writeFile(
      output,
      `${JSON.stringify({ date: new Date().toISOString(), realistic: realisticFigures, speed, e2e }, null, 2)}\n`,
    );
    console.log(`wrote ${path.relative(ROOT, output)}`);
  } finally {
    admin.sqs.destroy();
    admin.dynamodb.destroy();
    await emulator.stop();
  }
}

await main();
