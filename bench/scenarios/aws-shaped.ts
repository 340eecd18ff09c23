/**
 * The AWS-shaped mode: every request of both systems waits for AWS's typical in-region
 * latency first (bench/lib/latency.ts: DynamoDB 5 ms, SQS 15 ms, with jitter), and concurrent
 * requests wait concurrently, so pipelining and concurrency show where moto's single lock
 * hides them. Measured per repetition, systems in a rotating order:
 * - enqueueBatch of `batchTasks` realistic tasks against raw SendMessageBatch calls;
 * - single enqueue against raw SendMessage, `singleTasks` calls in sequence;
 * - end to end with 100 ms handlers: Tasklane's worker against a raw handler that only waits
 *   100 ms per message, both behind the local event source mapping with the same batch size
 *   and concurrency, from the first receive to the last delete.
 */
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { realisticPayload, realisticTask, slowTask } from '../fixtures/realistic.js';
import { createExecutor } from '../lib/environment.js';
import { AWS_SHAPE, type LatencyShape } from '../lib/latency.js';
import type { BenchContext } from './context.js';
import { benchWorker, countedClients, drain } from './in-process.js';

/** Milliseconds of every repetition, per system. */
export interface Paired {
  readonly tasklane: number[];
  readonly raw: number[];
}

/** What the AWS-shaped mode measured. */
export interface AwsShapedResults {
  readonly shape: LatencyShape;
  readonly batchTasks: number;
  readonly singleTasks: number;
  readonly endToEndTasks: number;
  readonly handlerMs: number;
  readonly batch: Paired;
  readonly single: Paired;
  readonly endToEnd: Paired;
}

const HANDLER_MS = 100;
const SYSTEMS = ['raw', 'tasklane'] as const;
type System = (typeof SYSTEMS)[number];

function rawEntry(i: number, prefix: string) {
  const id = `${prefix}-${i}`;
  return {
    Id: String(i % 10),
    MessageBody: JSON.stringify({ id, type: realisticTask.type, payload: realisticPayload(i) }),
    MessageGroupId: id,
    MessageDeduplicationId: id,
  };
}

async function rawBatches(sqs: SQSClient, queueUrl: string, n: number, prefix: string) {
  for (let i = 0; i < n; i += 10) {
    const entries = Array.from({ length: Math.min(10, n - i) }, (_, k) => rawEntry(i + k, prefix));
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The raw loop's handler: each message's 100 ms of work, the batch's messages at once. */
async function rawHandler(event: SQSEvent): Promise<SQSBatchResponse> {
  await Promise.all(event.Records.map(() => sleep(HANDLER_MS)));
  return { batchItemFailures: [] };
}

type Measure = 'batch' | 'single' | 'endToEnd';

/** One timed run of one system, in ms. */
async function once(ctx: BenchContext, system: System, what: Measure, n: number): Promise<number> {
  const executor = await createExecutor(ctx.admin, `aws-${what}-${system}`);
  const c = await countedClients(executor, 'aws-shaped');
  try {
    let start = performance.now();
    if (what === 'batch') {
      if (system === 'tasklane') {
        const results = await c.client.enqueueBatch(
          Array.from({ length: n }, (_, i) => ({
            task: realisticTask,
            payload: realisticPayload(i),
          })),
        );
        ctx.checks.equal(
          `aws-shaped batch ${system}: sent`,
          results.filter((r) => r.ok && r.sent).length,
          n,
        );
      } else {
        await rawBatches(c.sqs, executor.queueUrl, n, 'b');
      }
      return performance.now() - start;
    }
    if (what === 'single') {
      for (let i = 0; i < n; i++) {
        if (system === 'tasklane') await c.client.enqueue(realisticTask, realisticPayload(i));
        else {
          const { Id: _, ...entry } = rawEntry(i, 's');
          await c.sqs.send(new SendMessageCommand({ QueueUrl: executor.queueUrl, ...entry }));
        }
      }
      return performance.now() - start;
    }
    if (system === 'tasklane') {
      await c.client.enqueueBatch(
        Array.from({ length: n }, (_, i) => ({ task: slowTask, payload: realisticPayload(i) })),
      );
    } else {
      await rawBatches(c.sqs, executor.queueUrl, n, 'e');
    }
    const handler = system === 'tasklane' ? benchWorker([slowTask], executor, c) : rawHandler;
    start = performance.now();
    const run = await drain(c.sqs, executor.queueUrl, n, handler, {
      batchSize: ctx.profile.batchSize,
      concurrency: ctx.profile.concurrency,
      timeoutMs: 120_000 + n * 500,
    });
    ctx.checks.equal(`aws-shaped end to end ${system}: deleted`, run.deleted, n);
    return performance.now() - start;
  } finally {
    c.destroy();
    await executor.destroy();
  }
}

/** Runs the interleaved repetitions. */
export async function runAwsShaped(ctx: BenchContext): Promise<AwsShapedResults> {
  const { batchTasks, singleTasks, endToEndTasks } = ctx.profile.awsShaped;
  const results: AwsShapedResults = {
    shape: AWS_SHAPE,
    batchTasks,
    singleTasks,
    endToEndTasks,
    handlerMs: HANDLER_MS,
    batch: { tasklane: [], raw: [] },
    single: { tasklane: [], raw: [] },
    endToEnd: { tasklane: [], raw: [] },
  };
  const sizes = { batch: batchTasks, single: singleTasks, endToEnd: endToEndTasks } as const;
  for (let rep = 0; rep < ctx.profile.reps; rep++) {
    for (const what of ['batch', 'single', 'endToEnd'] as const) {
      const order = rep % 2 === 0 ? SYSTEMS : ([...SYSTEMS].reverse() as System[]);
      for (const system of order) {
        const ms = await once(ctx, system, what, sizes[what]);
        results[what][system].push(ms);
      }
      ctx.log(
        `aws-shaped rep ${rep + 1}/${ctx.profile.reps} ${what}: tasklane ${(results[what].tasklane.at(-1) ?? 0).toFixed(0)} ms, raw ${(results[what].raw.at(-1) ?? 0).toFixed(0)} ms`,
      );
    }
  }
  return results;
}
