import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTask } from '../../src/tasks/task-definition.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const save = defineTask('save', { schema: z.object({ n: z.number() }), handler: () => undefined });

let executor: TestExecutor;

beforeAll(async () => {
  executor = await setupExecutor();
});

/** The requests one enqueue made, from a client that made no other. */
async function requestsOf(
  enqueue: (client: ReturnType<TestExecutor['client']>) => Promise<unknown>,
) {
  const client = executor.client();
  await enqueue(client);
  const { usage } = client.costReport();
  return { dynamodb: usage.dynamodbRequests, sqs: usage.sqsRequests };
}

describe('TaskClient.enqueue with debounce, requests per enqueue', () => {
  it('costs 3 DynamoDB requests and 1 SQS send to create, 2 DynamoDB requests to fold', async () => {
    // Arrange
    const debounce = { key: 'cost-1', windowMs: 30_000, mode: 'last' } as const;

    // Act
    const creating = await requestsOf((c) => c.enqueue(save, { n: 1 }, { debounce }));
    const folding = await requestsOf((c) => c.enqueue(save, { n: 2 }, { debounce }));

    // Assert
    expect(creating).toEqual({ dynamodb: 3, sqs: 1 });
    expect(folding).toEqual({ dynamodb: 2, sqs: 0 });
  });
});
