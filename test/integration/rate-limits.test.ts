import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { isTerminal, TaskStatus } from '../../src/core/constants.js';
import { ValidationError } from '../../src/core/errors.js';
import type { TaskDefinition } from '../../src/tasks/task-definition.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testClients } from '../helpers/aws.js';
import { eventually, setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  executor = await setupExecutor();
});

afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** What the workers' DynamoDB clients saw: every key updated, every start a bucket granted. */
interface Observed {
  readonly updatedKeys: string[];
  /** Granted slots (in the granting worker's clock), from the bucket writes that succeeded. */
  readonly slots: number[];
}

/** A number attribute, marshalled (`{ N }`) or not, depending on where the middleware sits. */
function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : Number((value as { N?: string } | undefined)?.N);
}

/** The rate limit of these tests' limited types: the emission interval, in ms. */
const EMISSION_MS = 400;

/**
 * The starts a bucket write granted: none for a refused write or a place in the line; for an
 * idle grant (`SET tat = :now + count × T`), `count` from the request's now on; for a booked
 * one (`SET tat = tat + count × T`), `count` from the tat it replaced (UPDATED_OLD).
 */
function grantedSlots(
  input: { ExpressionAttributeValues?: Record<string, unknown>; ReturnValues?: string },
  output: { output?: unknown },
): number[] {
  const values = input.ExpressionAttributeValues ?? {};
  const old = (output.output as { Attributes?: Record<string, unknown> }).Attributes;
  const now = numberOf(values[':now']);
  const step = numberOf(values[':u_tat']);
  const spaced = (first: number, count: number) =>
    Array.from({ length: count }, (_, i) => first + i * EMISSION_MS);
  if (input.ReturnValues === 'UPDATED_OLD') {
    return old?.tat === undefined ? [] : spaced(numberOf(old.tat), step / EMISSION_MS);
  }
  if (input.ReturnValues === undefined && values[':now'] !== undefined) {
    return spaced(now, (step - now) / EMISSION_MS);
  }
  return [];
}

/** A DynamoDB client that records into `observed` what it sends and what it gets back. */
function observingDynamodb(observed: Observed): DynamoDBClient {
  const client = testClients().dynamodb;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      // The document client's UpdateCommand and the plain UpdateItemCommand alike.
      if (context.commandName === 'UpdateItemCommand' || context.commandName === 'UpdateCommand') {
        const input = args.input as {
          Key?: { pk?: unknown };
          ExpressionAttributeValues?: Record<string, unknown>;
          ReturnValues?: string;
        };
        const pk = input.Key?.pk;
        const key = typeof pk === 'string' ? pk : String((pk as { S?: string })?.S);
        observed.updatedKeys.push(key);
        if (key.startsWith('rate-limit ')) observed.slots.push(...grantedSlots(input, output));
      }
      return output;
    },
    { step: 'initialize', name: 'observe-updates' },
  );
  return client;
}

/** Starts a poll loop of `tasks` per clock skew, each with its own observed DynamoDB client. */
function startWorkers(tasks: readonly TaskDefinition[], skewsMs: readonly number[]): Observed {
  const observed: Observed = { updatedKeys: [], slots: [] };
  for (const skew of skewsMs) {
    const controller = new AbortController();
    const polling = executor
      .worker(tasks, { dynamodb: observingDynamodb(observed), clock: () => Date.now() + skew })
      .poll({ signal: controller.signal, waitTimeSeconds: 1, batchSize: 10 });
    stops.push(async () => {
      controller.abort();
      await polling;
    });
  }
  return observed;
}

/** The least time spanned by `limit + 1` consecutive starts: over intervalMs when exact. */
function tightestSpan(starts: readonly number[], limit: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let tightest = Number.POSITIVE_INFINITY;
  for (let i = 0; i + limit < sorted.length; i++) {
    tightest = Math.min(tightest, (sorted[i + limit] as number) - (sorted[i] as number));
  }
  return tightest;
}

/** The workers' injected clock skews, 120 ms apart at most. */
const SKEWS_MS = [0, 40, -40, 80];
const SKEW_SPAN_MS = 120;
/**
 * A handler starts after its granted slot by the claim's latency, which on a loaded emulator
 * reaches a second; starts are checked with this allowance, grants with the skew alone.
 */
const TOLERANCE_MS = SKEW_SPAN_MS + 1_000;

describe('rateLimit under contention', () => {
  it('keeps four workers to the limit in every window and runs every task on attempt 1', async () => {
    // Arrange
    const starts: { at: number; attempt: number }[] = [];
    const call = defineTask('rl-call', {
      schema: z.object({ n: z.number() }),
      rateLimit: { limit: 5, intervalMs: 5 * EMISSION_MS },
      handler: (_payload, ctx) => {
        starts.push({ at: Date.now(), attempt: ctx.attempt });
      },
    });
    let warmed = 0;
    const warm = defineTask('rl-warm', {
      schema: z.object({ n: z.number() }),
      handler: () => {
        warmed += 1;
      },
    });
    const client = executor.client();
    const entries = Array.from({ length: 30 }, (_, n) => ({ task: call, payload: { n } }));
    const observed = startWorkers([call, warm], SKEWS_MS);
    // Connections opened before the measured run, so its first claims are not the slowest.
    await client.enqueueBatch(
      [0, 1, 2, 3, 4, 5, 6, 7].map((n) => ({ task: warm, payload: { n } })),
    );
    await eventually(() => warmed >= 8, 60_000);

    // Act
    const results = await client.enqueueBatch(entries);
    await eventually(() => starts.length >= 30, 120_000);
    // The 30th start is seen as its handler begins; its success is written just after.
    const ids = results.map((r) => (r.ok ? r.id : ''));
    const finished = async () =>
      (await Promise.all(ids.map((id) => executor.store.get(id)))).every(
        (r) => r !== undefined && isTerminal(r.status),
      );
    await eventually(finished, 30_000);

    // Assert
    const records = await Promise.all(ids.map((id) => executor.store.get(id)));
    expect(starts).toHaveLength(30);
    expect(starts.every((s) => s.attempt === 1)).toBe(true);
    expect(records.every((r) => r?.status === TaskStatus.SUCCEEDED && r.attempt === 1)).toBe(true);
    expect(observed.slots.length).toBeGreaterThanOrEqual(30);
    expect(tightestSpan(observed.slots, 5)).toBeGreaterThanOrEqual(2_000 - SKEW_SPAN_MS);
    // Handler starts lag their slots by the claim's latency, which varies on a loaded
    // emulator; over the whole run they keep the rate: 30 starts at 5 per 2 s take 10 s.
    const startTimes = starts.map((s) => s.at);
    const runMs = Math.max(...startTimes) - Math.min(...startTimes);
    expect(runMs).toBeGreaterThanOrEqual(25 * 400 - TOLERANCE_MS);
  }, 150_000);

  it('defers what is over the limit instead of dropping it', async () => {
    // Arrange
    const starts: number[] = [];
    const slow = defineTask('rl-slow', {
      schema: z.object({ n: z.number() }),
      rateLimit: { limit: 1, intervalMs: 8_000 },
      handler: () => {
        starts.push(Date.now());
      },
    });
    const client = executor.client();

    // Act
    const results = await client.enqueueBatch(
      [0, 1, 2].map((n) => ({ task: slow, payload: { n } })),
    );
    startWorkers([slow], [0, 0]);
    await eventually(() => starts.length >= 3, 90_000);
    // The third start is seen before its completion is written: wait for every record to finish.
    const ids = results.map((r) => (r.ok ? r.id : ''));
    const finished = async () => Promise.all(ids.map((id) => executor.store.get(id)));
    await eventually(
      async () => (await finished()).every((r) => r !== undefined && isTerminal(r.status)),
      30_000,
    );

    // Assert
    const records = await finished();
    expect(records.map((r) => [r?.status, r?.attempt])).toEqual([
      [TaskStatus.SUCCEEDED, 1],
      [TaskStatus.SUCCEEDED, 1],
      [TaskStatus.SUCCEEDED, 1],
    ]);
    expect(tightestSpan(starts, 1)).toBeGreaterThanOrEqual(8_000 - TOLERANCE_MS);
  }, 120_000);
});

describe('rateLimit.perKey', () => {
  it('limits each ordering key on its own', async () => {
    // Arrange
    const starts: { key: string; at: number }[] = [];
    const sync = defineTask('rl-sync', {
      schema: z.object({ key: z.string() }),
      rateLimit: { limit: 1, intervalMs: 3_000, perKey: true },
      handler: ({ key }) => {
        starts.push({ key, at: Date.now() });
      },
    });
    const keys = ['tenant-a', 'tenant-b', 'tenant-c'];
    const entries = keys.flatMap((key) =>
      [0, 1].map(() => ({ task: sync, payload: { key }, options: { orderingKey: key } })),
    );

    // Act
    await executor.client().enqueueBatch(entries);
    startWorkers([sync], [0, 30]);
    await eventually(() => starts.length >= 6, 90_000);

    // Assert
    const firsts = keys.map((key) => starts.find((s) => s.key === key)?.at ?? 0);
    expect(Math.max(...firsts) - Math.min(...firsts)).toBeLessThan(2_000);
    for (const key of keys) {
      const own = starts.filter((s) => s.key === key).map((s) => s.at);
      expect(tightestSpan(own, 1)).toBeGreaterThanOrEqual(3_000 - TOLERANCE_MS);
    }
  }, 120_000);
});

describe('rateLimit cost', () => {
  it('writes the bucket once per limited task and never for a type without a limit', async () => {
    // Arrange
    let runs = 0;
    const free = defineTask('rl-free', {
      schema: z.object({ n: z.number() }),
      handler: () => {
        runs += 1;
      },
    });
    const roomy = defineTask('rl-roomy', {
      schema: z.object({ n: z.number() }),
      rateLimit: { limit: 1_000, intervalMs: 1_000 },
      handler: () => {
        runs += 1;
      },
    });
    const client = executor.client();
    await client.enqueueBatch([0, 1, 2, 3].map((n) => ({ task: free, payload: { n } })));
    // One key: they run one after another, so each write sees the last one's bucket.
    await client.enqueueBatch(
      [0, 1, 2].map((n) => ({ task: roomy, payload: { n }, options: { orderingKey: 'one' } })),
    );

    // Act
    const { updatedKeys } = startWorkers([free, roomy], [0]);
    await eventually(() => runs >= 7, 60_000);
    await Promise.all(stops.splice(0).map((stop) => stop()));

    // Assert
    const bucketWrites = updatedKeys.filter((key) => key.startsWith('rate-limit '));
    expect(bucketWrites).toEqual([
      'rate-limit rl-roomy',
      'rate-limit rl-roomy',
      'rate-limit rl-roomy',
    ]);
    const succeeded = await client.listByStatus(TaskStatus.SUCCEEDED, { limit: 1000 });
    expect(succeeded.items.some((task) => task.id.startsWith('rate-limit'))).toBe(false);
    // The bucket's key has a space, which no task id has: `get` refuses it before any call.
    await expect(client.get('rate-limit rl-roomy')).rejects.toThrow(ValidationError);
    expect((await client.counts()).total).toBe(succeeded.items.length);
  }, 90_000);
});

describe('rateLimit deferral', () => {
  it('hands a deferred message back at once, not when its batch ends', async () => {
    // Arrange
    let slowEndedAt = 0;
    const slow = defineTask('rl-batch-slow', {
      schema: z.object({ n: z.number() }),
      handler: async () => {
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        slowEndedAt = Date.now();
      },
    });
    const limited = defineTask('rl-batch-limited', {
      schema: z.object({ n: z.number() }),
      rateLimit: { limit: 1, intervalMs: 60_000 },
      handler: () => undefined,
    });
    // The bucket's one start of the minute is taken.
    await executor.clients.dynamodb.send(
      new PutItemCommand({
        TableName: executor.tableName,
        Item: marshall({ pk: 'rate-limit rl-batch-limited', tat: Date.now() + 60_000 }),
      }),
    );
    const client = executor.client();
    const deferred = await client.enqueue(limited, { n: 0 });
    await client.enqueue(slow, { n: 1 });
    const records = await executor.receive();
    const handBacks: { at: number; handles: string[] }[] = [];
    const sqs = testClients().sqs;
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ChangeMessageVisibilityBatchCommand') {
          const input = args.input as { Entries?: { ReceiptHandle?: string }[] };
          handBacks.push({
            at: Date.now(),
            handles: (input.Entries ?? []).map((e) => e.ReceiptHandle ?? ''),
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'observe-hand-backs' },
    );

    // Act
    const response = await executor.deliver(executor.worker([slow, limited], { sqs }), records);

    // Assert
    expect(records).toHaveLength(2);
    const message = records.find((r) => r.body.includes(deferred.id));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: message?.messageId }]);
    const handBack = handBacks.find((h) => h.handles.includes(message?.receiptHandle ?? ''));
    expect(handBack).toBeDefined();
    expect(handBack?.at).toBeLessThan(slowEndedAt);
    expect((await executor.store.get(deferred.id))?.status).toBe(TaskStatus.PENDING);
  }, 60_000);
});
