import {
  DynamoDBClient,
  type GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ImageMeter } from '../lib/image-meter.js';
import type { IndexShape } from '../lib/index-writes.js';

const SHAPE: IndexShape = {
  tableKey: ['pk'],
  indexKey: ['statusShard', 'statusAt'],
  projection: 'KEYS_ONLY',
  nonKeyAttributes: [],
};

type Item = Record<string, { S?: string; N?: string }>;

/** A table in memory: the reader reads it, and the written client's requests apply to it. */
function fakeTable() {
  const items = new Map<string, Item>();
  const reader = {
    send: async (command: GetItemCommand) => ({
      Item: items.get(String(command.input.Key?.pk?.S)),
    }),
  } as unknown as DynamoDBClient;
  const client = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  // Answers instead of sending (inside the meter, outside the deserializer), and applies
  // the write to the table. Added after the meter at the same step and priority: inside it.
  const fake = () =>
    client.middlewareStack.add(
      () => async (args: { input: object }) => {
        const input = args.input as { Item?: Item; Key?: Item; next?: Item };
        if (input.Item !== undefined) items.set(String(input.Item.pk?.S), input.Item);
        if (input.Key !== undefined && input.next !== undefined) {
          items.set(String(input.Key.pk?.S), input.next);
        }
        return { output: { $metadata: {} }, response: {} };
      },
      { step: 'deserialize', priority: 'high', name: 'fakeTable' },
    );
  return { reader, client, fake };
}

describe('ImageMeter', () => {
  it('prices each write from the images before and after it, table and index apart', async () => {
    const { reader, client, fake } = fakeTable();
    const meter = new ImageMeter(reader, SHAPE);
    meter.attach(client);
    fake();
    const pending = { pk: { S: 't1' }, statusShard: { S: 'PENDING#2' }, statusAt: { N: '1' } };
    const running = { pk: { S: 't1' }, note: { S: 'x'.repeat(1100) } };

    await client.send(new PutItemCommand({ TableName: 'tasks', Item: pending }));
    // The fake applies `next` as the item after the update (not a real UpdateItem field).
    const update = { TableName: 'tasks', Key: { pk: { S: 't1' } }, UpdateExpression: 'SET x = :x' };
    await client.send(new UpdateItemCommand({ ...update, next: running } as never));
    const tally = meter.snapshot();

    expect(tally.byOperation['DynamoDB.PutItem']).toEqual({ writeUnits: 1, indexWriteUnits: 1 });
    // The update leaves the index (a sparse index: one delete) and grows past 1 KB.
    expect(tally.byOperation['DynamoDB.UpdateItem']).toEqual({
      writeUnits: 2,
      indexWriteUnits: 1,
    });
    expect(tally.indexWritesByPartition).toEqual({ 'PENDING#2': 2 });
    client.destroy();
  });
});
