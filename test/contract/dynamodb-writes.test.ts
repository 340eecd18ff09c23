/**
 * DynamoDB writes: a conditional write is atomic under concurrency and explains a refusal
 * with the current item, and an UpdateItem is all or nothing. Every transition of a task is
 * one such write (docs/adr/0002-lease-model.md).
 */
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/aws.js';
import { dynamodb } from './support.js';

let table: string;

beforeAll(async () => {
  table = uniqueName('contract');
  await dynamodb.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    }),
  );
});

async function getItem(pk: string) {
  const out = await dynamodb.send(
    new GetItemCommand({ TableName: table, Key: { pk: { S: pk } }, ConsistentRead: true }),
  );
  return out.Item;
}

/** A claim: QUEUED -> RUNNING by `worker`, allowed only from QUEUED. */
function claim(pk: string, worker: string) {
  return dynamodb.send(
    new UpdateItemCommand({
      TableName: table,
      Key: { pk: { S: pk } },
      UpdateExpression: 'SET #s = :running, #w = :worker ADD attempts :one',
      ConditionExpression: '#s = :queued',
      ExpressionAttributeNames: { '#s': 'status', '#w': 'worker' },
      ExpressionAttributeValues: {
        ':running': { S: 'RUNNING' },
        ':queued': { S: 'QUEUED' },
        ':worker': { S: worker },
        ':one': { N: '1' },
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
}

describe('DynamoDB conditional UpdateItem', () => {
  it('lets exactly one of 20 concurrent conditional writes win', async () => {
    await dynamodb.send(
      new PutItemCommand({
        TableName: table,
        Item: { pk: { S: 'race' }, status: { S: 'QUEUED' } },
      }),
    );
    const workers = Array.from({ length: 20 }, (_, n) => `w${n}`);

    const outcomes = await Promise.allSettled(workers.map((w) => claim('race', w)));

    const winners = workers.filter((_, n) => outcomes[n]?.status === 'fulfilled');
    const refusals = outcomes.filter(
      (o) => o.status === 'rejected' && o.reason instanceof ConditionalCheckFailedException,
    );
    expect(winners).toHaveLength(1);
    expect(refusals).toHaveLength(19);
    const item = await getItem('race');
    expect(item?.worker).toEqual({ S: winners[0] });
    expect(item?.attempts).toEqual({ N: '1' });
  });

  it('returns the current item with a refusal when asked for ALL_OLD', async () => {
    await dynamodb.send(
      new PutItemCommand({
        TableName: table,
        Item: { pk: { S: 'taken' }, status: { S: 'RUNNING' }, worker: { S: 'w-old' } },
      }),
    );

    const refusal = await claim('taken', 'w-new').then(
      () => undefined,
      (err: unknown) => err,
    );

    expect(refusal).toBeInstanceOf(ConditionalCheckFailedException);
    expect((refusal as ConditionalCheckFailedException).Item).toEqual({
      pk: { S: 'taken' },
      status: { S: 'RUNNING' },
      worker: { S: 'w-old' },
    });
  });
});

describe('DynamoDB UpdateItem over the 400 KB item limit', () => {
  const kb = (n: number) => 'x'.repeat(n * 1024);

  it('leaves an existing item unchanged when the update would make it too large', async () => {
    const before = { pk: { S: 'big' }, status: { S: 'RUNNING' }, history: { S: kb(250) } };
    await dynamodb.send(new PutItemCommand({ TableName: table, Item: before }));

    const refusal = await dynamodb
      .send(
        new UpdateItemCommand({
          TableName: table,
          Key: { pk: { S: 'big' } },
          // The first clause fits on its own; the second crosses the limit.
          UpdateExpression: 'SET #s = :done, more = :more',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':done': { S: 'SUCCEEDED' }, ':more': { S: kb(200) } },
        }),
      )
      .then(
        () => undefined,
        (err: unknown) => err,
      );

    expect((refusal as Error | undefined)?.name).toBe('ValidationException');
    expect(await getItem('big')).toEqual(before);
  });

  it('creates nothing when an update of a missing item would be too large', async () => {
    const refusal = await dynamodb
      .send(
        new UpdateItemCommand({
          TableName: table,
          Key: { pk: { S: 'never' } },
          UpdateExpression: 'SET #s = :queued, a = :a, b = :b',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: {
            ':queued': { S: 'QUEUED' },
            ':a': { S: kb(250) },
            ':b': { S: kb(250) },
          },
        }),
      )
      .then(
        () => undefined,
        (err: unknown) => err,
      );

    expect((refusal as Error | undefined)?.name).toBe('ValidationException');
    expect(await getItem('never')).toBeUndefined();
  });
});
