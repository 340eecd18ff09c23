/**
 * The AWS requests a task costs on the write path (docs/adr/0020-claim-without-pre-read.md),
 * counted per command on the producer's and the worker's own DynamoDB clients.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testClients } from '../helpers/aws.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let executor: TestExecutor;

beforeEach(async () => {
  executor = await setupExecutor();
});

/** A DynamoDB client on the emulator that counts the commands it sends, by name. */
function countingDynamo(): { client: DynamoDBClient; counts: Map<string, number> } {
  const client = testClients().dynamodb;
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => (args) => {
      const name = context.commandName ?? 'unknown';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  return { client, counts };
}

const TASKS = 10;

describe('requests per task', () => {
  it('costs the worker one claim and one completion per successful task, and no read', async () => {
    // Arrange
    const task = defineTask('count.ok', { schema: z.object({ n: z.number() }), handler: () => {} });
    const producer = countingDynamo();
    const consumer = countingDynamo();
    const client = executor.client({ dynamodb: producer.client });
    for (let n = 0; n < TASKS; n++) await client.enqueue(task, { n }, { id: `ok-${n}` });

    // Act
    await executor.drain(executor.worker([task], { dynamodb: consumer.client }));

    // Assert
    const records = await Promise.all([...Array(TASKS).keys()].map((n) => client.get(`ok-${n}`)));
    expect(records.every((r) => r?.status === TaskStatus.SUCCEEDED)).toBe(true);
    expect(Object.fromEntries(consumer.counts)).toEqual({ UpdateItemCommand: 2 * TASKS });
    expect(producer.counts.get('PutItemCommand')).toBe(TASKS);
  });

  it('costs a task that fails once two claims, a retry and a completion, and no read', async () => {
    // Arrange
    const failed = new Set<number>();
    const task = defineTask('count.flaky', {
      schema: z.object({ n: z.number() }),
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
      handler: ({ n }) => {
        if (failed.has(n)) return;
        failed.add(n);
        throw new Error('first attempt fails');
      },
    });
    const consumer = countingDynamo();
    const client = executor.client();
    for (let n = 0; n < TASKS; n++) await client.enqueue(task, { n }, { id: `flaky-${n}` });
    const worker = executor.worker([task], { dynamodb: consumer.client });

    // Act
    for (let round = 0; round < 10; round++) {
      await executor.drain(worker);
      const records = await Promise.all([...failed].map((n) => client.get(`flaky-${n}`)));
      if (records.every((r) => r?.status === TaskStatus.SUCCEEDED)) break;
      await new Promise((r) => setTimeout(r, 1_100));
    }

    // Assert
    const records = await Promise.all(
      [...Array(TASKS).keys()].map((n) => client.get(`flaky-${n}`)),
    );
    expect(records.map((r) => r?.status)).toEqual(Array(TASKS).fill(TaskStatus.SUCCEEDED));
    expect(records.map((r) => r?.attempt)).toEqual(Array(TASKS).fill(2));
    expect(Object.fromEntries(consumer.counts)).toEqual({ UpdateItemCommand: 4 * TASKS });
  });
});
