/**
 * Rate limits reach their rate (issue 29): a backlog of tasks of a type limited to `limit`
 * per `intervalMs`, drained by one worker and by four, each behind its own local event
 * source mapping (batch size and concurrency as the other end-to-end runs). The run records
 * every start the buckets granted (from the bucket writes, as the integration test reads
 * them) and every handler start, and reports both per interval.
 *
 * On moto a task costs tens of milliseconds of serialized emulator time, so a limit above
 * what the emulator can process (100 per second) cannot show its rate end to end. The
 * `limiter` mode then measures the rate limiter alone: four workers' limiters (each with as
 * many tasks in flight as its mapping holds) take starts from the real bucket item on the
 * emulator, and a deferred task comes back when SQS would hand it back (whole seconds).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { awsClientConfig, sqsClientConfig } from '../../src/aws/clients.js';
import {
  createWorker,
  defineTask,
  noopMetrics,
  silentLogger,
  TaskClient,
  type TaskDefinition,
} from '../../src/index.js';
import { runEventSourceMapping } from '../../src/local/testing/index.js';
import { TaskStore } from '../../src/store/task-store.js';
import {
  type BucketWrite,
  type BucketWriteResult,
  TokenBuckets,
} from '../../src/store/token-bucket.js';
import { RateLimiter } from '../../src/worker/rate-limit.js';
import { createExecutor } from '../lib/environment.js';
import { mostInWindow } from '../lib/rate-windows.js';
import type { BenchContext } from './context.js';

/** One limit, measured one way with some workers. */
export interface RateLimitRun {
  readonly limit: number;
  readonly intervalMs: number;
  readonly workers: number;
  /** `end-to-end`: tasks through workers; `limiter`: the rate limiter alone (module comment). */
  readonly mode: 'end-to-end' | 'limiter';
  readonly tasks: number;
  /** Granted starts (ms, the granting worker's clock), in grant order. */
  readonly grants: readonly number[];
  /** Handler starts (end to end) or admissions (limiter), ms. */
  readonly starts: readonly number[];
  /** Bucket writes sent, refused ones included. */
  readonly bucketWrites: number;
  /** Deferrals (a task handed back to come later). */
  readonly deferrals: number;
}

/** The runs of the rate-limit scenario. */
export interface RateLimitResults {
  readonly runs: readonly RateLimitRun[];
}

/** The limits the issue names, the backlog of each, and how they are run. */
const PLAN = [
  { limit: 5, intervalMs: 2_000, tasks: 40, mode: 'end-to-end' },
  { limit: 100, intervalMs: 1_000, tasks: 300, mode: 'end-to-end' },
  { limit: 100, intervalMs: 1_000, tasks: 800, mode: 'limiter' },
] as const;
const WORKER_COUNTS = [1, 4] as const;
/** Tasks a worker holds at once: the mapping's batch size times its concurrency. */
const IN_FLIGHT = 20;
/** The time a Lambda worker leaves for waiting: a 60 s function, 30 s tasks, 3 s margin. */
const LAMBDA_SLACK_MS = 27_000;

const schema = z.object({ i: z.number().int().nonnegative() });

/** Runs every limit with one worker and with four. */
export async function runRateLimits(ctx: BenchContext): Promise<RateLimitResults> {
  const scale = ctx.profile.name === 'quick' ? 0.25 : 1;
  const runs: RateLimitRun[] = [];
  for (const plan of PLAN) {
    for (const workers of WORKER_COUNTS) {
      const tasks = Math.max(10, Math.round(plan.tasks * scale));
      const spec = { ...plan, tasks, workers };
      const run = plan.mode === 'limiter' ? await limiterRun(ctx, spec) : await endToEnd(ctx, spec);
      runs.push(run);
      ctx.log(
        `rate limit ${plan.limit} per ${plan.intervalMs} ms, ${plan.mode}, ${workers} worker(s): ${run.starts.length} starts`,
      );
    }
  }
  return { runs };
}

interface RunSpec {
  readonly limit: number;
  readonly intervalMs: number;
  readonly tasks: number;
  readonly workers: number;
}

/** The type under test, unique per run so that no bucket carries over. */
function limitedType(spec: RunSpec, handler: () => void): TaskDefinition {
  const type = `bench.rate.${spec.limit}per${spec.intervalMs}.${spec.workers}.${Date.now()}`;
  return defineTask(type, {
    schema,
    rateLimit: { limit: spec.limit, intervalMs: spec.intervalMs },
    handler,
  });
}

/**
 * A DynamoDB client that records the starts its bucket writes were granted: an idle grant
 * (`SET tat = :now + count × T`) from the request's now, a booked one (`SET tat = tat +
 * count × T`, UPDATED_OLD) from the tat it replaced; and counts every bucket write.
 */
function observingClient(emissionMs: number, grants: number[], writes: { n: number }) {
  const client = new DynamoDBClient(awsClientConfig());
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        Key?: { pk?: unknown };
        ExpressionAttributeValues?: Record<string, unknown>;
        ReturnValues?: string;
      };
      const pk = input.Key?.pk;
      // The document client's UpdateCommand, or a plain UpdateItemCommand (marshalled).
      const key = typeof pk === 'string' ? pk : (pk as { S?: string } | undefined)?.S;
      const isBucket =
        (context.commandName === 'UpdateCommand' || context.commandName === 'UpdateItemCommand') &&
        key?.startsWith('rate-limit ') === true;
      if (isBucket) writes.n += 1;
      const output = await next(args);
      if (isBucket) grants.push(...grantedSlots(input, output.output, emissionMs));
      return output;
    },
    { step: 'initialize', name: 'bench-observe-grants' },
  );
  return client;
}

function grantedSlots(
  input: { ExpressionAttributeValues?: Record<string, unknown>; ReturnValues?: string },
  output: unknown,
  emissionMs: number,
): number[] {
  const values = input.ExpressionAttributeValues ?? {};
  const step = numberOf(values[':u_tat']);
  const spaced = (first: number, count: number) =>
    Array.from({ length: Math.round(count) }, (_, i) => first + i * emissionMs);
  if (input.ReturnValues === 'UPDATED_OLD') {
    const old = (output as { Attributes?: { tat?: unknown } }).Attributes?.tat;
    return old === undefined ? [] : spaced(numberOf(old), step / emissionMs);
  }
  const now = values[':now'];
  if (input.ReturnValues === undefined && now !== undefined) {
    return spaced(numberOf(now), (step - numberOf(now)) / emissionMs);
  }
  return [];
}

/** A number attribute, marshalled (`{ N }`) or not, depending on where the middleware sits. */
function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : Number((value as { N?: string } | undefined)?.N);
}

/** Tasks through `workers` workers, each behind its own local event source mapping. */
async function endToEnd(ctx: BenchContext, spec: RunSpec): Promise<RateLimitRun> {
  const executor = await createExecutor(ctx.admin, `rate-${spec.limit}`, 60);
  const grants: number[] = [];
  const writes = { n: 0 };
  const starts: number[] = [];
  let deferrals = 0;
  const task = limitedType(spec, () => {
    starts.push(Date.now());
  });
  const emissionMs = spec.intervalMs / spec.limit;
  const sqs = new SQSClient(sqsClientConfig());
  const dynamodb = observingClient(emissionMs, grants, writes);
  const location = {
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    queueArn: executor.queueArn,
  };
  const client = new TaskClient({ ...location, sqs, dynamodb, logger: silentLogger });
  const controller = new AbortController();
  try {
    const created = await client.enqueueBatch(
      Array.from({ length: spec.tasks }, (_, i) => ({ task, payload: { i } })),
    );
    const logger = {
      ...silentLogger,
      debug: (message: string) => {
        if (message === 'message deferred') deferrals += 1;
      },
    };
    const mappings = Array.from({ length: spec.workers }, (_, n) => {
      const worker = createWorker([task], {
        ...location,
        sqs,
        dynamodb,
        logger,
        metrics: noopMetrics,
        workerId: `bench-worker-${n}`,
      });
      return runEventSourceMapping({
        sqs,
        queueUrl: executor.queueUrl,
        handler: worker.lambdaHandler,
        signal: controller.signal,
        logger: silentLogger,
        batchSize: ctx.profile.batchSize,
        maximumConcurrency: ctx.profile.concurrency,
        waitTimeSeconds: 1,
      });
    });
    const deadline = Date.now() + 60_000 + ((spec.tasks * spec.intervalMs) / spec.limit) * 3;
    while (starts.length < spec.tasks && Date.now() < deadline) await sleep(200);
    controller.abort();
    await Promise.all(mappings);
    const ok = created.filter((r) => r.ok && r.created).length;
    ctx.checks.equal(
      `rate ${spec.limit}/${spec.intervalMs}, ${spec.workers}w: created`,
      ok,
      spec.tasks,
    );
    ctx.checks.equal(
      `rate ${spec.limit}/${spec.intervalMs}, ${spec.workers}w: every task started once`,
      starts.length,
      spec.tasks,
    );
    checkNeverOver(ctx, spec, grants);
    return {
      ...spec,
      mode: 'end-to-end',
      grants,
      starts,
      bucketWrites: writes.n,
      deferrals,
    };
  } finally {
    controller.abort();
    sqs.destroy();
    dynamodb.destroy();
    await executor.destroy();
  }
}

/**
 * The limiter alone: `workers` rate limiters on the real bucket item, each with
 * {@link IN_FLIGHT} tasks at once, over a backlog held in memory; a deferred task is back
 * after its delay rounded up to whole seconds, as SQS's visibility timeout would have it.
 */
async function limiterRun(ctx: BenchContext, spec: RunSpec): Promise<RateLimitRun> {
  const executor = await createExecutor(ctx.admin, `rate-limiter-${spec.limit}`, 60);
  const grants: number[] = [];
  const starts: number[] = [];
  let bucketWrites = 0;
  let deferrals = 0;
  const task = limitedType(spec, () => undefined);
  const dynamodb = new DynamoDBClient(awsClientConfig());
  const store = new TaskStore({ tableName: executor.tableName, dynamodb, logger: silentLogger });
  const buckets = {
    take: async (key: string, write: BucketWrite): Promise<BucketWriteResult> => {
      bucketWrites += 1;
      const result = await store.feature(TokenBuckets).take(key, write);
      if (result.kind === 'granted') grants.push(...result.slots);
      return result;
    },
  };
  const backlog = Array.from({ length: spec.tasks }, (_, i) => ({ i, visibleAt: 0 }));
  const next = () => {
    const now = Date.now();
    const at = backlog.findIndex((item) => item.visibleAt <= now);
    return at < 0 ? undefined : backlog.splice(at, 1)[0];
  };
  try {
    await Promise.all(
      Array.from({ length: spec.workers }, async () => {
        const limiter = new RateLimiter(buckets, Date.now, Math.random);
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (starts.length < spec.tasks) {
              const item = next();
              if (item === undefined) {
                await sleep(50);
                continue;
              }
              const admission = await limiter.admit(
                task,
                { id: `task-${item.i}`, type: task.type },
                { maxWaitMs: LAMBDA_SLACK_MS },
              );
              if (admission.kind === 'go') {
                starts.push(Date.now());
                continue;
              }
              deferrals += 1;
              const seconds = Math.max(1, Math.ceil(admission.delayMs / 1000));
              backlog.push({ ...item, visibleAt: Date.now() + seconds * 1000 });
            }
          }),
        );
      }),
    );
    checkNeverOver(ctx, spec, grants);
    return {
      ...spec,
      mode: 'limiter',
      grants,
      starts,
      bucketWrites,
      deferrals,
    };
  } finally {
    dynamodb.destroy();
    await executor.destroy();
  }
}

/** The guarantee, checked on every run: no window of the interval holds more grants than the limit. */
function checkNeverOver(ctx: BenchContext, spec: RunSpec, grants: readonly number[]): void {
  const most = mostInWindow(
    [...grants].sort((a, b) => a - b),
    spec.intervalMs,
  );
  ctx.checks.equal(
    `rate ${spec.limit}/${spec.intervalMs}, ${spec.workers}w: never over the limit`,
    most <= spec.limit,
    true,
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
