/**
 * DynamoDB Streams: what `watch()` and `tasklane tail` rely on when they read the task
 * table's stream (docs/adr/0049-watch-reads-the-table-stream.md). A record per write that
 * changed an item, in write order per item, with the item before and after; none for a
 * refused write; an iterator that resumes after a given record. Where moto or MiniStack
 * differs, the test names the engine (docs/emulator.md).
 */
import {
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../helpers/aws.js';
import { dynamodb, endpointIsMoto, refusalOf } from './support.js';

const streams = new DynamoDBStreamsClient({ region: 'us-east-1' });
let table: string;
let streamArn: string;
let shardId: string;

beforeAll(async () => {
  table = uniqueName('streams');
  await dynamodb.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  await waitUntilTableExists({ client: dynamodb, maxWaitTime: 60 }, { TableName: table });
  const described = await dynamodb.send(new DescribeTableCommand({ TableName: table }));
  streamArn = described.Table?.LatestStreamArn ?? '';
  const stream = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  shardId = stream.StreamDescription?.Shards?.find(
    (s) => s.SequenceNumberRange?.EndingSequenceNumber === undefined,
  )?.ShardId as string;
});

/** An iterator of the open shard, at its end (LATEST) or after a record. */
async function iterator(after?: string): Promise<string> {
  const out = await streams.send(
    new GetShardIteratorCommand({
      StreamArn: streamArn,
      ShardId: shardId,
      ...(after === undefined
        ? { ShardIteratorType: 'LATEST' }
        : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }),
    }),
  );
  return out.ShardIterator as string;
}

/**
 * Reads from `start` until a record of the key `until` arrives (AWS shows a write in the
 * stream within a second or so, an emulator at once), and returns every record read before
 * it and that record, with the iterator after them.
 */
async function readUntil(
  start: string,
  until: string,
): Promise<{ records: StreamRecord[]; next: string }> {
  const records: StreamRecord[] = [];
  let next = start;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const out = await streams.send(new GetRecordsCommand({ ShardIterator: next }));
    records.push(...(out.Records ?? []));
    next = out.NextShardIterator as string;
    if (records.some((r) => r.dynamodb?.Keys?.pk?.S === until)) return { records, next };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no record of ${until} within 20 s`);
}

const keysOf = (records: StreamRecord[]) => records.map((r) => r.dynamodb?.Keys?.pk?.S);
const put = (pk: string, v: string) =>
  dynamodb.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk }, v: { S: v } } }));
const set = (pk: string, v: string, condition?: string) =>
  dynamodb.send(
    new UpdateItemCommand({
      TableName: table,
      Key: { pk: { S: pk } },
      UpdateExpression: 'SET v = :v',
      ExpressionAttributeValues: {
        ':v': { S: v },
        ...(condition ? { ':c': { S: condition } } : {}),
      },
      ...(condition ? { ConditionExpression: 'v = :c' } : {}),
    }),
  );

describe('The table stream', () => {
  it('is on the table created with it, and its open shard has no ending sequence number', async () => {
    const stream = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));

    expect(streamArn).toContain(`table/${table}/stream/`);
    expect(stream.StreamDescription?.StreamViewType).toBe('NEW_AND_OLD_IMAGES');
    expect(shardId).toEqual(expect.any(String));
  });

  it('shows each write after a LATEST iterator once, in write order, with the item before and after', async () => {
    const key = uniqueName('item');
    await put(`${key}-before`, 'x');
    const start = await iterator();

    await put(key, '1');
    await set(key, '2');
    await dynamodb.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: key } } }));
    await put(`${key}-end`, 'x');
    const { records } = await readUntil(start, `${key}-end`);

    const mine = records.filter((r) => r.dynamodb?.Keys?.pk?.S === key);
    expect(keysOf(records)).not.toContain(`${key}-before`);
    expect(mine.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    expect(mine.map((r) => [r.dynamodb?.OldImage?.v?.S, r.dynamodb?.NewImage?.v?.S])).toEqual([
      [undefined, '1'],
      ['1', '2'],
      ['2', undefined],
    ]);
    const sequence = mine.map((r) => BigInt(r.dynamodb?.SequenceNumber ?? '0'));
    expect([...sequence].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequence);
  });

  it('answers an open shard with nothing new by no records and a next iterator', async () => {
    const start = await iterator();

    const out = await streams.send(new GetRecordsCommand({ ShardIterator: start }));

    expect(out.Records ?? []).toEqual([]);
    expect(out.NextShardIterator).toEqual(expect.any(String));
  });

  it('resumes after a given record: nothing lost, nothing repeated', async () => {
    const key = uniqueName('resume');
    const start = await iterator();
    await put(`${key}-a`, '1');
    await put(`${key}-b`, '1');
    const first = await readUntil(start, `${key}-b`);
    const a = first.records.find((r) => r.dynamodb?.Keys?.pk?.S === `${key}-a`);

    const resumed = await readUntil(await iterator(a?.dynamodb?.SequenceNumber), `${key}-b`);

    expect(keysOf(resumed.records)).toEqual([`${key}-b`]);
  });

  it('writes no record for a refused conditional write', async () => {
    const key = uniqueName('refused');
    await put(key, '1');
    const start = await iterator();

    const refusal = await refusalOf(set(key, '2', 'not-1'));
    await put(`${key}-end`, 'x');
    const { records } = await readUntil(start, `${key}-end`);

    expect(refusal).toBe('ConditionalCheckFailedException');
    expect(keysOf(records)).toEqual([`${key}-end`]);
  });

  it('writes no record for an UpdateItem refused for its size, of an item it would create', async () => {
    const key = uniqueName('oversize');
    const start = await iterator();

    const refusal = await refusalOf(set(key, 'x'.repeat(401 * 1024)));
    await put(`${key}-end`, 'x');
    const { records } = await readUntil(start, `${key}-end`);

    expect(refusal).toBeDefined();
    expect(keysOf(records)).toEqual([`${key}-end`]);
  });

  it('writes no record for a refused transaction, and an earlier iterator still sees later writes', async () => {
    const key = uniqueName('tx');
    await put(key, '1');
    const start = await iterator();

    const refusal = await refusalOf(
      dynamodb.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table, Item: { pk: { S: `${key}-new` }, v: { S: '1' } } } },
            {
              Update: {
                TableName: table,
                Key: { pk: { S: key } },
                UpdateExpression: 'SET v = :v',
                ConditionExpression: 'v = :c',
                ExpressionAttributeValues: { ':v': { S: '2' }, ':c': { S: 'not-1' } },
              },
            },
          ],
        }),
      ),
    );
    await put(`${key}-end`, 'x');
    const { records } = await readUntil(start, `${key}-end`);

    expect(refusal).toBe('TransactionCanceledException');
    expect(keysOf(records)).toEqual([`${key}-end`]);
  });

  it('moto: writes a record for an UpdateItem that changes nothing, and two INSERTs for one that creates the item (pinned deviation)', async () => {
    const key = uniqueName('noop');
    await put(key, '1');
    const start = await iterator();

    await set(key, '1');
    await set(`${key}-created`, '1');
    const { records } = await readUntil(start, `${key}-created`);

    const moto = await endpointIsMoto();
    expect(keysOf(records.filter((r) => r.dynamodb?.Keys?.pk?.S === key))).toEqual(
      moto ? [key] : [],
    );
    expect(
      records.filter((r) => r.dynamodb?.Keys?.pk?.S === `${key}-created`).map((r) => r.eventName),
    ).toEqual(moto ? ['INSERT', 'INSERT'] : ['INSERT']);
  });
});
