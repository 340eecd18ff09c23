/**
 * The stream reader's shard rules, on a scripted shard list: the emulators have one shard per
 * table that never closes, so parents, children and closed shards only happen on AWS
 * (docs/adr/0049-watch-reads-the-table-stream.md). The scripted client answers the three
 * calls the reader makes from the shards below; everything else about the stream is pinned
 * against the emulators by test/contract/dynamodb-streams.test.ts.
 */
import * as sdk from '@aws-sdk/client-dynamodb-streams';
import { describe, expect, it } from 'vitest';
import { TableStream } from '../../../src/store/table-stream.js';

interface ScriptedShard {
  readonly id: string;
  readonly parent?: string;
  /** Closed shards have an ending sequence number and, once read, no next iterator. */
  readonly closed: boolean;
  /** Sequence numbers of the records it holds, oldest first. */
  readonly records: string[];
}

/** A DynamoDB Streams client that serves `shards`; `iterator` names `<shard>@<next index>`. */
function scriptedStreams(shards: ScriptedShard[]) {
  const calls: string[] = [];
  const find = (id: string) => shards.find((s) => s.id === id) as ScriptedShard;
  const client = {
    send: async (command: unknown): Promise<unknown> => {
      if (command instanceof sdk.DescribeStreamCommand) {
        calls.push('DescribeStream');
        return {
          StreamDescription: {
            Shards: shards.map((s) => ({
              ShardId: s.id,
              ...(s.parent === undefined ? {} : { ParentShardId: s.parent }),
              SequenceNumberRange: {
                StartingSequenceNumber: '0',
                ...(s.closed ? { EndingSequenceNumber: s.records.at(-1) ?? '0' } : {}),
              },
            })),
          },
        };
      }
      if (command instanceof sdk.GetShardIteratorCommand) {
        const { ShardId, ShardIteratorType, SequenceNumber } = command.input;
        calls.push(`GetShardIterator ${ShardId} ${ShardIteratorType}`);
        const shard = find(ShardId as string);
        const from =
          ShardIteratorType === 'LATEST'
            ? shard.records.length
            : ShardIteratorType === 'AFTER_SEQUENCE_NUMBER'
              ? shard.records.indexOf(SequenceNumber as string) + 1
              : 0;
        return { ShardIterator: `${shard.id}@${from}` };
      }
      if (command instanceof sdk.GetRecordsCommand) {
        const [id, at] = (command.input.ShardIterator as string).split('@');
        const shard = find(id as string);
        const from = Number(at);
        const records = shard.records.slice(from).map((seq) => ({
          eventName: 'MODIFY',
          dynamodb: { SequenceNumber: seq },
        }));
        const end = shard.records.length;
        return {
          Records: records,
          ...(shard.closed && from + records.length >= end
            ? {}
            : { NextShardIterator: `${id}@${end}` }),
        };
      }
      throw new Error('unexpected command');
    },
  } as unknown as sdk.DynamoDBStreamsClient;
  return { client, calls };
}

const sequences = (read: { records: readonly sdk._Record[] }) =>
  read.records.map((r) => r.dynamodb?.SequenceNumber);

describe('TableStream', () => {
  it('reads a child shard only after its parent is read to its end, from its first record', async () => {
    const shards: ScriptedShard[] = [
      { id: 'parent', closed: true, records: ['1', '2'] },
      { id: 'child', parent: 'parent', closed: false, records: ['3', '4'] },
    ];
    const { client } = scriptedStreams(shards);
    const stream = new TableStream(sdk, client, 'arn:stream', 'TRIM_HORIZON', () => 0);

    const first = await stream.read();
    const second = await stream.read();

    expect(sequences(first)).toEqual(['1', '2']);
    expect(first.more).toBe(true);
    expect(sequences(second)).toEqual(['3', '4']);
  });

  it('starts a LATEST reader at the end of the open shards and skips the closed ones', async () => {
    const shards: ScriptedShard[] = [
      { id: 'old', closed: true, records: ['1'] },
      { id: 'open', parent: 'old', closed: false, records: ['2'] },
    ];
    const { client, calls } = scriptedStreams(shards);
    const stream = new TableStream(sdk, client, 'arn:stream', 'LATEST', () => 0);

    const first = await stream.read();
    shards[1]?.records.push('3');
    const second = await stream.read();

    expect(sequences(first)).toEqual([]);
    expect(sequences(second)).toEqual(['3']);
    expect(calls).not.toContain('GetShardIterator old LATEST');
    expect(calls).toContain('GetShardIterator open LATEST');
  });

  it('finds the children of a shard that ends while it reads, and reads them from their first record', async () => {
    const shards: ScriptedShard[] = [{ id: 'a', closed: false, records: ['1'] }];
    const { client, calls } = scriptedStreams(shards);
    const stream = new TableStream(sdk, client, 'arn:stream', 'LATEST', () => 0);
    await stream.read();

    shards[0] = { id: 'a', closed: true, records: ['1', '2'] };
    shards.push({ id: 'b', parent: 'a', closed: false, records: ['3'] });
    const ended = await stream.read();
    const next = await stream.read();

    expect(sequences(ended)).toEqual(['2']);
    expect(sequences(next)).toEqual(['3']);
    expect(calls).toContain('GetShardIterator b TRIM_HORIZON');
    expect(calls.filter((c) => c === 'DescribeStream')).toHaveLength(2);
  });
});
