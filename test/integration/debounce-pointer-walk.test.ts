/**
 * A debounced enqueue whose key's pointer is missing or behind (docs/adr/0033-debounce-fences.md):
 * it walks past the finished generations, one request each, without counting them as lost
 * races, and leaves the pointer on the generation it ends at.
 */
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TableSchema, TaskStatus } from '../../src/core/constants.js';
import { debounceTaskId, pointerKey } from '../../src/store/debounce.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';
import { putRawItem, rawItem } from '../helpers/raw-item.js';

const remind = defineTask('debounce-walk.remind', {
  schema: z.object({ n: z.number() }),
  handler: () => undefined,
});

let executor: TestExecutor;
let keys = 0;
const nextKey = () => `walk-${++keys}`;

beforeAll(async () => {
  executor = await setupExecutor();
});

/**
 * Finishes `count` generations of the key, one after another: each is created, then
 * cancelled (finished, as a DEAD one would be; DEAD ones stay until purged).
 */
async function finishedGenerations(key: string, count: number): Promise<void> {
  const client = executor.client();
  for (let n = 1; n <= count; n++) {
    const { id } = await client.enqueue(
      remind,
      { n },
      { debounce: { key, windowMs: 60_000, mode: 'first' } },
    );
    await client.cancel(id);
  }
}

const pointerOf = async (key: string) =>
  (await rawItem(executor, pointerKey(remind.type, key))).generation;

describe('TaskClient.enqueue with debounce, past stored generations', () => {
  it('creates the next generation after more than 16 finished ones once the pointer is gone', async () => {
    const key = nextKey();
    const debounce = { key, windowMs: 60_000, mode: 'first' } as const;
    await finishedGenerations(key, 17);
    await executor.clients.dynamodb.send(
      new DeleteItemCommand({
        TableName: executor.tableName,
        Key: marshall({ [TableSchema.PARTITION_KEY]: pointerKey(remind.type, key) }),
      }),
    );
    const walking = executor.client();
    const after = executor.client();

    const created = await walking.enqueue(remind, { n: 100 }, { debounce });
    const folded = await after.enqueue(remind, { n: 101 }, { debounce });

    expect(created.id).toBe(debounceTaskId(remind.type, key, 18));
    expect([created.created, created.absorbed]).toEqual([true, false]);
    // One refused create per stored generation, then the create and the pointer's write.
    expect(walking.costReport().usage.dynamodbRequests).toBe(1 + 17 + 2);
    expect(await pointerOf(key)).toBe(18);
    expect(folded).toMatchObject({ id: created.id, absorbed: true });
    expect(after.costReport().usage.dynamodbRequests).toBe(2);
  });

  it('folds into the waiting task past a lagging pointer, and moves the pointer up to it', async () => {
    const key = nextKey();
    const debounce = { key, windowMs: 60_000, mode: 'first' } as const;
    await finishedGenerations(key, 2);
    const waiting = await executor.client().enqueue(remind, { n: 3 }, { debounce });
    await putRawItem(executor, {
      ...(await rawItem(executor, pointerKey(remind.type, key))),
      generation: 1,
    });

    const folded = await executor.client().enqueue(remind, { n: 4 }, { debounce });

    expect(waiting.id).toBe(debounceTaskId(remind.type, key, 3));
    expect(folded).toMatchObject({ id: waiting.id, created: false, absorbed: true });
    expect(await pointerOf(key)).toBe(3);
    const record = await executor.client().get(waiting.id);
    expect(record).toMatchObject({ status: TaskStatus.PENDING, payload: { n: 3 } });
    expect(record?.debounce?.absorbed).toBe(1);
  });
});
