/**
 * The task table's DynamoDB stream, read as `watch()` and `tasklane tail` need it: every
 * record once, each shard in order, a child shard only after its parent, so that the records
 * of one item come out in the order of its writes
 * (docs/adr/0049-watch-reads-the-table-stream.md).
 *
 * A stream keeps its records 24 hours. A shard iterator expires 15 minutes after it was
 * handed out; the reader asks for a new one after the last record it read, so a consumer
 * that pauses loses nothing. A reader more than 24 hours behind has lost records for good:
 * it throws {@link WatchGapError} rather than go on as if nothing was missing.
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type {
  DynamoDBStreamsClient,
  GetRecordsCommandOutput,
  Shard,
  ShardIteratorType,
  _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { awsClientConfig, mapConcurrently } from '../aws/clients.js';
import { TaskStatus } from '../core/constants.js';
import { ConfigurationError, WatchGapError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { fromItem } from './record.js';

export type { DynamoDBStreamsClient, StreamRecord };

/**
 * The task a stream record's image (`NewImage` or `OldImage`) holds, or undefined when it
 * holds none: no image (an INSERT's old one, a REMOVE's new one), an item that is not a task
 * (a debounce pointer, a park or rate-limit item), or one that cannot be read.
 */
export function taskOfImage(image: Record<string, unknown> | undefined): TaskRecord | undefined {
  if (image === undefined) return undefined;
  try {
    const item = unmarshall(image as Parameters<typeof unmarshall>[0]);
    const status = item.status;
    if (typeof item.type !== 'string' || !Object.values(TaskStatus).includes(status)) {
      return undefined;
    }
    return fromItem(item);
  } catch {
    return undefined; // Not a task's shape: nothing to show.
  }
}

/** Where the shards open when the reader starts are read from. */
export type StreamStart = 'LATEST' | 'TRIM_HORIZON';

/** Options of {@link openTableStream}. */
export interface TableStreamOptions {
  readonly dynamodb: DynamoDBClient;
  readonly tableName: string;
  /** @default a client with the table client's region, credentials and endpoint */
  readonly streams?: DynamoDBStreamsClient | undefined;
  /** LATEST: writes from now on; TRIM_HORIZON: everything the stream still holds (24 h). */
  readonly start: StreamStart;
  /** @default Date.now */
  readonly clock?: () => number;
}

/** One read of every shard: the records, in order per shard, parents first. */
export interface StreamRead {
  readonly records: readonly StreamRecord[];
  /** True when a shard may have more right away: the caller should read again without pausing. */
  readonly more: boolean;
}

/** How often the shard list is read again even when no shard has ended. */
const DESCRIBE_EVERY_MS = 60_000;
/** Shards read at once; DynamoDB Streams allows 5 GetRecords a second per shard. */
const SHARD_CONCURRENCY = 8;

interface ShardState {
  readonly id: string;
  readonly parent: string | undefined;
  /** Where to ask an iterator from while no record has been read. */
  readonly startType: ShardIteratorType;
  iterator: string | undefined;
  /** The last record read: a new iterator starts after it. */
  lastSequence: string | undefined;
  /** Read to its end (closed and drained), or found gone. */
  done: boolean;
}

/**
 * Finds the table's stream (DescribeTable's `LatestStreamArn`) and returns a reader of it.
 *
 * @throws ConfigurationError when the table has no stream: a deployment from before the
 *   construct enabled it, or a table provisioned by an older release.
 */
export async function openTableStream(options: TableStreamOptions): Promise<TableStream> {
  const described = await options.dynamodb.send(
    new DescribeTableCommand({ TableName: options.tableName }),
  );
  const arn = described.Table?.LatestStreamArn;
  const enabled = described.Table?.StreamSpecification?.StreamEnabled === true;
  if (arn === undefined || !enabled) {
    throw new ConfigurationError(
      `The task table '${options.tableName}' has no stream, which watch() and \`tasklane tail\` read. Deploy the TaskExecutor construct of this release (it enables the stream), or create the table with provision() again.`,
      { resource: options.tableName },
    );
  }
  // Loaded here, on first use, so that producers, which never watch, do not load it.
  const sdk = await import('@aws-sdk/client-dynamodb-streams');
  const streams = options.streams ?? streamsClientFor(sdk, options.dynamodb);
  return new TableStream(sdk, streams, arn, options.start, options.clock ?? Date.now);
}

/** The DynamoDB Streams SDK module, loaded on first use. */
type StreamsSdk = typeof import('@aws-sdk/client-dynamodb-streams');

/**
 * A DynamoDB Streams client that goes where the table client goes: its region, its
 * credentials and, when it has one, its endpoint (an emulator serves both APIs on one).
 */
function streamsClientFor(sdk: StreamsSdk, dynamodb: DynamoDBClient): DynamoDBStreamsClient {
  const { region, credentials, endpoint } = dynamodb.config;
  return new sdk.DynamoDBStreamsClient({
    ...awsClientConfig(),
    region,
    credentials,
    ...(endpoint === undefined ? {} : { endpoint }),
  });
}

/** A reader of one table stream; see the module comment. */
export class TableStream {
  private readonly shards = new Map<string, ShardState>();
  private describedAt = Number.NEGATIVE_INFINITY;
  private describeDue = true;
  private started = false;
  /** Shards an iterator was taken for at least once (a second one means the first expired). */
  private readonly tookIterator = new Set<string>();
  /** When the reader took its first iterators: an expired LATEST one is replaced from here. */
  private startedAt = 0;

  constructor(
    private readonly sdk: StreamsSdk,
    private readonly streams: DynamoDBStreamsClient,
    /** The stream's ARN. */
    readonly arn: string,
    private readonly start: StreamStart,
    private readonly clock: () => number,
  ) {}

  /**
   * Reads each shard that may be read now once: the first call takes its iterators (so a
   * LATEST reader sees every write after that call's GetShardIterator), later calls read on
   * from them.
   *
   * @throws WatchGapError when a shard's next records were trimmed (the reader fell more
   *   than 24 hours behind).
   */
  async read(): Promise<StreamRead> {
    if (this.describeDue || this.clock() - this.describedAt >= DESCRIBE_EVERY_MS) {
      await this.describe();
    }
    const readable = [...this.shards.values()].filter((s) => this.readable(s));
    const reads = await mapConcurrently(readable, (s) => this.readShard(s), SHARD_CONCURRENCY);
    const ended = readable.some((s) => s.done);
    if (ended) this.describeDue = true;
    return {
      records: reads.flat(),
      more: ended || reads.some((records) => records.length > 0),
    };
  }

  /** Reads the shard list (every page) and takes note of shards not seen before. */
  private async describe(): Promise<void> {
    const { DescribeStreamCommand } = this.sdk;
    const listed: Shard[] = [];
    let after: string | undefined;
    do {
      const out = await this.streams.send(
        new DescribeStreamCommand({ StreamArn: this.arn, ExclusiveStartShardId: after }),
      );
      listed.push(...(out.StreamDescription?.Shards ?? []));
      after = out.StreamDescription?.LastEvaluatedShardId;
    } while (after !== undefined);
    for (const shard of listed) {
      const id = shard.ShardId;
      if (id === undefined || this.shards.has(id)) continue;
      const closed = shard.SequenceNumberRange?.EndingSequenceNumber !== undefined;
      // At the start, a LATEST reader skips closed shards and reads open ones from now on;
      // a shard that appears later is new, and read from its first record.
      const skip = !this.started && this.start === 'LATEST' && closed;
      this.shards.set(id, {
        id,
        parent: shard.ParentShardId,
        startType: this.started ? 'TRIM_HORIZON' : this.start,
        iterator: undefined,
        lastSequence: undefined,
        done: skip,
      });
    }
    if (!this.started) this.startedAt = this.clock();
    this.started = true;
    this.describedAt = this.clock();
    this.describeDue = false;
  }

  /** A shard is read once its parent, if the reader knows it, has been read to its end. */
  private readable(shard: ShardState): boolean {
    if (shard.done) return false;
    const parent = shard.parent === undefined ? undefined : this.shards.get(shard.parent);
    return parent === undefined || parent.done;
  }

  private async readShard(shard: ShardState): Promise<StreamRecord[]> {
    const { GetRecordsCommand } = this.sdk;
    const replacesExpiredLatest = shard.iterator === undefined && this.expiredLatest(shard);
    shard.iterator ??= await this.iteratorOf(shard);
    if (shard.iterator === undefined) return [];
    let out: GetRecordsCommandOutput;
    try {
      out = await this.streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator }));
    } catch (err) {
      const name = (err as { name?: unknown }).name;
      if (name === 'ExpiredIteratorException') {
        // Idle for 15 minutes: a new iterator after the last record read loses nothing.
        shard.iterator = undefined;
        return [];
      }
      if (name === 'TrimmedDataAccessException') throw new WatchGapError(this.arn, shard.id);
      if (name === 'ResourceNotFoundException') {
        shard.done = true;
        return [];
      }
      throw err;
    }
    const records = out.Records ?? [];
    const last = records.at(-1)?.dynamodb?.SequenceNumber;
    if (last !== undefined) shard.lastSequence = last;
    shard.iterator = out.NextShardIterator;
    if (out.NextShardIterator === undefined || out.NextShardIterator === null) shard.done = true;
    return replacesExpiredLatest ? records.filter((r) => this.afterStart(r)) : records;
  }

  /** A LATEST shard whose iterator expired before it returned any record. */
  private expiredLatest(shard: ShardState): boolean {
    return (
      shard.startType === 'LATEST' &&
      shard.lastSequence === undefined &&
      this.tookIterator.has(shard.id)
    );
  }

  /**
   * Written at or after the reader's start, by the record's time: AWS rounds it down to the
   * second, so the records of the second the reader started in are kept.
   */
  private afterStart(record: StreamRecord): boolean {
    const at = record.dynamodb?.ApproximateCreationDateTime?.getTime();
    return at === undefined || at >= Math.floor(this.startedAt / 1000) * 1000;
  }

  /**
   * An iterator after the last record read; else from where the shard starts being read.
   * A LATEST iterator that expired before it returned any record is replaced by one from the
   * shard's first record still kept, so the writes made meanwhile are read too; `readShard`
   * drops the records from before the reader's start.
   */
  private async iteratorOf(shard: ShardState): Promise<string | undefined> {
    const { GetShardIteratorCommand } = this.sdk;
    const type: ShardIteratorType =
      shard.lastSequence !== undefined
        ? 'AFTER_SEQUENCE_NUMBER'
        : this.expiredLatest(shard)
          ? 'TRIM_HORIZON'
          : shard.startType;
    try {
      const out = await this.streams.send(
        new GetShardIteratorCommand({
          StreamArn: this.arn,
          ShardId: shard.id,
          ShardIteratorType: type,
          ...(type === 'AFTER_SEQUENCE_NUMBER' ? { SequenceNumber: shard.lastSequence } : {}),
        }),
      );
      this.tookIterator.add(shard.id);
      return out.ShardIterator;
    } catch (err) {
      const name = (err as { name?: unknown }).name;
      if (name === 'TrimmedDataAccessException') throw new WatchGapError(this.arn, shard.id);
      if (name === 'ResourceNotFoundException') {
        shard.done = true;
        return undefined;
      }
      throw err;
    }
  }
}
