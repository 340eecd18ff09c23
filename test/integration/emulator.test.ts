// Smoke test for the harness itself: the shared emulator is reachable through testClients().
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, ListQueuesCommand } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { testClients, uniqueName } from '../helpers/aws.js';

describe('emulator harness', () => {
  const { sqs, dynamodb } = testClients();
  afterAll(() => {
    sqs.destroy();
    dynamodb.destroy();
  });

  it('creates and lists an SQS queue', async () => {
    const name = uniqueName('smoke-queue');
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
    expect(QueueUrl).toContain(name);

    const { QueueUrls } = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: name }));
    expect(QueueUrls).toEqual([QueueUrl]);
  });

  it('creates and describes a DynamoDB table', async () => {
    const name = uniqueName('smoke-table');
    await dynamodb.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );

    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.TableName).toBe(name);
    expect(Table?.TableStatus).toBe('ACTIVE');
  });
});
