/**
 * A task's record stays under 1 KB, one write unit per write, through a successful run and a
 * retried one, with a Lambda-length worker id and payloads up to 500 bytes
 * (docs/adr/0027-compact-history.md). Each size is the stored item, read back raw with
 * GetItem after the transition and measured by DynamoDB's published rules
 * (bench/lib/item-size.ts).
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { itemSize } from '../../bench/lib/item-size.js';
import { TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

/** A worker id shaped like a Lambda log stream name: 52 characters. */
const LAMBDA_WORKER_ID = '2026/12/01/[$LATEST]0123456789abcdef0123456789abcdef';
/** A write of an item this large or larger costs a second write unit. */
const ONE_KB = 1024;

let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
});

/** The stored size of a task's item, by DynamoDB's rules. */
async function storedBytes(id: string): Promise<number> {
  const out = await executor.clients.dynamodb.send(
    new GetItemCommand({
      TableName: executor.tableName,
      Key: { pk: { S: id } },
      ConsistentRead: true,
    }),
  );
  if (out.Item === undefined) throw new Error(`no item ${id}`);
  return itemSize(unmarshall(out.Item));
}

/** A JSON payload of exactly `bytes` bytes: `{ "note": "xx…" }`. */
function payloadOf(bytes: number): { note: string } {
  return { note: 'x'.repeat(bytes - JSON.stringify({ note: '' }).length) };
}

/**
 * Runs one task to SUCCEEDED, failing its first `failures` attempts, and returns the stored
 * size after each transition: submitted, then per attempt claimed (measured by the handler
 * while it runs) and retried or succeeded.
 */
async function sizesThroughRun(type: string, bytes: number, failures: number) {
  const sizes: [string, number][] = [];
  let id = '';
  const task = defineTask(type, {
    schema: z.object({ note: z.string() }),
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
    handler: async (_payload, ctx) => {
      sizes.push([`claimed (attempt ${ctx.attempt})`, await storedBytes(id)]);
      if (ctx.attempt <= failures) throw new Error('upstream answered 503 Service Unavailable');
    },
  });
  const payload = payloadOf(bytes);
  expect(Buffer.byteLength(JSON.stringify(payload))).toBe(bytes);
  // A generated id: a ULID, 26 characters.
  ({ id } = await executor.client().enqueue(task, payload));
  sizes.push(['submitted', await storedBytes(id)]);
  const worker = executor.worker([task], { workerId: LAMBDA_WORKER_ID });
  for (let round = 0; round < 20; round++) {
    const before = sizes.length;
    await executor.drain(worker);
    if (sizes.length > before) {
      const record = await executor.store.get(id);
      sizes.push([
        `${record?.status.toLowerCase()} (attempt ${record?.attempt})`,
        await storedBytes(id),
      ]);
      if (record?.status === TaskStatus.SUCCEEDED) return sizes;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`task ${id} did not succeed: ${JSON.stringify(sizes)}`);
}

describe('task record size', () => {
  it.each([300, 500])(
    'stays under 1 KB after every write of a successful task with a %i-byte payload',
    async (bytes) => {
      // Arrange
      const type = `orders.confirm-${bytes}`;

      // Act
      const sizes = await sizesThroughRun(type, bytes, 0);

      // Assert
      expect(sizes.map(([step]) => step)).toEqual([
        'submitted',
        'claimed (attempt 1)',
        'succeeded (attempt 1)',
      ]);
      expect(sizes.filter(([, size]) => size >= ONE_KB)).toEqual([]);
    },
  );

  it.each([300, 500])(
    'stays under 1 KB after every write of a task retried once, with a %i-byte payload',
    async (bytes) => {
      // Arrange
      const type = `orders.retried-${bytes}`;

      // Act
      const sizes = await sizesThroughRun(type, bytes, 1);

      // Assert
      expect(sizes.map(([step]) => step)).toEqual([
        'submitted',
        'claimed (attempt 1)',
        'queued (attempt 1)',
        'claimed (attempt 2)',
        'succeeded (attempt 2)',
      ]);
      expect(sizes.filter(([, size]) => size >= ONE_KB)).toEqual([]);
    },
  );
});
