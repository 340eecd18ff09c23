import { Readable } from 'node:stream';
import {
  DynamoDBClient,
  type DynamoDBClientConfig,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, priceUsage } from '../../../src/observability/cost.js';
import { meterClient, UsageMeter } from '../../../src/observability/usage-meter.js';

type RequestHandler = NonNullable<DynamoDBClientConfig['requestHandler']>;

/** A DynamoDB client answering every request with `answer(body)`, as AWS shapes responses. */
function answering(answer: (body: Record<string, unknown>) => { status: number; body: object }) {
  const seen: Record<string, unknown>[] = [];
  const handler = {
    handle: async (request: { body?: unknown }) => {
      const raw = request.body;
      const text = typeof raw === 'string' ? raw : new TextDecoder().decode(raw as Uint8Array);
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      seen.push(body);
      const reply = answer(body);
      return {
        response: {
          statusCode: reply.status,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Readable.from([Buffer.from(JSON.stringify(reply.body))]),
        },
      };
    },
  } as unknown as RequestHandler;
  const client = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    requestHandler: handler,
    maxAttempts: 1,
  });
  return { client, seen };
}

const put = new PutItemCommand({ TableName: 't', Item: { pk: { S: 'a' } } });

describe('meterClient', () => {
  it('asks for ReturnConsumedCapacity TOTAL and sums the units DynamoDB reports', async () => {
    const { client, seen } = answering((body) => ({
      status: 200,
      body: { ConsumedCapacity: { TableName: 't', CapacityUnits: body.Limit ? 1.5 : 3 } },
    }));
    meterClient(client);
    const meter = new UsageMeter();

    await meter.track('x', async () => {
      await client.send(put);
      await client.send(new QueryCommand({ TableName: 't', Limit: 5 }));
    });

    expect(seen.map((b) => b.ReturnConsumedCapacity)).toEqual(['TOTAL', 'TOTAL']);
    expect(meter.take().get('x')).toEqual({
      usage: { sqsRequests: 0, dynamodbRequests: 2, writeUnits: 3, readUnits: 1.5 },
      tasks: 0,
    });
  });

  it('counts a refused conditional write as one request and one write unit', async () => {
    const { client } = answering(() => ({
      status: 400,
      body: {
        __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
        message: 'The conditional request failed',
      },
    }));
    meterClient(client);
    const meter = new UsageMeter();

    const failure = await meter
      .track('x', () => client.send(new UpdateItemCommand({ TableName: 't', Key: {} })))
      .catch((err: unknown) => err);

    expect((failure as Error).name).toBe('ConditionalCheckFailedException');
    expect(meter.take().get('x')?.usage).toEqual({
      sqsRequests: 0,
      dynamodbRequests: 1,
      writeUnits: 1,
      readUnits: 0,
    });
  });

  it('counts nothing and changes nothing outside a tracked scope', async () => {
    const { client, seen } = answering(() => ({ status: 200, body: {} }));
    meterClient(client);
    const meter = new UsageMeter();

    await client.send(put);

    expect(seen[0]?.ReturnConsumedCapacity).toBeUndefined();
    expect(meter.take().size).toBe(0);
  });

  it('keeps two meters on one client apart, each counting its own scope', async () => {
    const { client } = answering(() => ({
      status: 200,
      body: { ConsumedCapacity: { CapacityUnits: 1 } },
    }));
    meterClient(client);
    meterClient(client);
    const producer = new UsageMeter();
    const worker = new UsageMeter();

    await Promise.all([
      producer.trackTask('enqueue', () => client.send(put)),
      worker.trackTask('t', async () => {
        await client.send(put);
        await client.send(put);
      }),
    ]);

    expect(producer.since(0)).toEqual({
      usage: { sqsRequests: 0, dynamodbRequests: 1, writeUnits: 1, readUnits: 0 },
      tasks: 1,
    });
    expect(worker.since(0).usage.dynamodbRequests).toBe(2);
  });
});

describe('priceUsage', () => {
  it('prices requests and units per million with the table given', () => {
    const usage = {
      sqsRequests: 2_000_000,
      dynamodbRequests: 3_000_000,
      writeUnits: 4_000_000,
      readUnits: 1_000_000,
    };

    const priced = priceUsage(usage, 1_000_000, {
      ...DEFAULT_PRICES,
      dynamodbPerMillionWriteUnits: 1,
    });

    expect(priced.cost).toEqual({ sqs: 1, dynamodbWrites: 4, dynamodbReads: 0.125, total: 5.125 });
    expect(priced.costPerMillionTasks).toBe(5.125);
    expect(priced.requestsPerTask).toBe(5);
  });

  it('gives no per-task figures when no task was counted', () => {
    const priced = priceUsage(
      { sqsRequests: 1, dynamodbRequests: 0, writeUnits: 0, readUnits: 0 },
      0,
    );

    expect(priced.costPerMillionTasks).toBeUndefined();
    expect(priced.requestsPerTask).toBeUndefined();
  });
});
