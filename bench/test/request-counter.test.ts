import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { EMPTY_SUFFIX, mergeTallies, RequestCounter } from '../lib/request-counter.js';

type Handler = (args: { input: Record<string, unknown> }) => Promise<{ output: unknown }>;
type Middleware = (next: Handler, context: Record<string, string>) => Handler;

/** A client whose middleware stack only records what is added, and a way to send through it. */
function fakeClient() {
  let middleware: Middleware | undefined;
  let options: Record<string, unknown> | undefined;
  const client = {
    middlewareStack: {
      add: (m: Middleware, o: Record<string, unknown>) => {
        middleware = m;
        options = o;
      },
    },
  } as unknown as SQSClient;
  const send = (
    clientName: string,
    commandName: string,
    input: Record<string, unknown>,
    output: unknown,
  ) => {
    const next: Handler = async () => {
      if (output instanceof Error) throw output;
      return { output };
    };
    return (middleware as Middleware)(next, { clientName, commandName })({ input });
  };
  return { client, send, options: () => options };
}

describe('RequestCounter', () => {
  it('counts inside the retry middleware, once per attempt', () => {
    const fake = fakeClient();

    new RequestCounter().attach(fake.client);

    expect(fake.options()).toMatchObject({ step: 'deserialize', priority: 'high' });
  });

  it('counts requests by service and operation, failed ones included', async () => {
    const counter = new RequestCounter();
    const fake = fakeClient();
    counter.attach(fake.client);

    await fake.send('SQSClient', 'DeleteMessageBatchCommand', {}, {});
    await fake.send('SQSClient', 'DeleteMessageBatchCommand', {}, {});
    await expect(
      fake.send(
        'DynamoDBClient',
        'PutItemCommand',
        { Item: { pk: 'a' } },
        new Error('conditional'),
      ),
    ).rejects.toThrow('conditional');

    const tally = counter.snapshot();
    expect(tally['SQS.DeleteMessageBatch']?.requests).toBe(2);
    expect(tally['DynamoDB.PutItem']).toMatchObject({ requests: 1, writeUnits: 1 });
  });

  it('counts empty receives apart, and bills SQS payloads per started 64 KB', async () => {
    // Arrange
    const counter = new RequestCounter();
    const fake = fakeClient();
    counter.attach(fake.client);
    const big = 'x'.repeat(40 * 1024);

    // Act
    await fake.send('SQSClient', 'ReceiveMessageCommand', {}, { Messages: [] });
    await fake.send(
      'SQSClient',
      'ReceiveMessageCommand',
      {},
      { Messages: [{ Body: big }, { Body: big }] },
    );
    await fake.send(
      'SQSClient',
      'SendMessageBatchCommand',
      { Entries: [{ MessageBody: 'small' }] },
      {},
    );

    // Assert
    const tally = counter.snapshot();
    expect(tally[`SQS.ReceiveMessage${EMPTY_SUFFIX}`]?.requests).toBe(1);
    expect(tally['SQS.ReceiveMessage']).toMatchObject({ requests: 1, billedRequests: 2 });
    expect(tally['SQS.SendMessageBatch']).toMatchObject({ requests: 1, billedRequests: 1 });
  });

  it('charges index writes: one for a put, two for an update that moves the index key', async () => {
    // Arrange
    const counter = new RequestCounter(['statusShard']);
    const fake = fakeClient();
    counter.attach(fake.client);
    const after = { pk: 'a', statusShard: 'QUEUED#1' };

    // Act
    await fake.send(
      'DynamoDBClient',
      'PutItemCommand',
      { Item: { pk: 'a', statusShard: 'PENDING#1' } },
      {},
    );
    await fake.send(
      'DynamoDBClient',
      'UpdateItemCommand',
      {
        UpdateExpression: 'SET #status = :to, #statusShard = :statusShard',
        ExpressionAttributeNames: { '#status': 'status', '#statusShard': 'statusShard' },
      },
      { Attributes: after },
    );
    await fake.send(
      'DynamoDBClient',
      'UpdateItemCommand',
      { UpdateExpression: 'SET #n = :n', ExpressionAttributeNames: { '#n': 'n' } },
      { Attributes: after },
    );

    // Assert
    const tally = counter.snapshot();
    expect(tally['DynamoDB.PutItem']).toMatchObject({ writeUnits: 1, indexWriteUnits: 1 });
    expect(tally['DynamoDB.UpdateItem']).toMatchObject({ writeUnits: 2, indexWriteUnits: 2 });
  });
});

describe('mergeTallies', () => {
  it('adds every figure of the same operation', () => {
    const one = { requests: 1, billedRequests: 1, writeUnits: 1, indexWriteUnits: 2, readUnits: 0 };
    expect(mergeTallies({ 'DynamoDB.PutItem': one }, { 'DynamoDB.PutItem': one })).toEqual({
      'DynamoDB.PutItem': {
        requests: 2,
        billedRequests: 2,
        writeUnits: 2,
        indexWriteUnits: 4,
        readUnits: 0,
      },
    });
  });
});
