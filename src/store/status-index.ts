/**
 * Reads of the table's sharded status index (docs/adr/0021-sparse-status-index.md). Every
 * read of the index is a Query of one partition, and every Query goes out through one pager,
 * {@link partitionPages}: a status's shard (`status#shard`), a release shard of finished
 * parents (`RELEASE#shard`) or the park items' partition alike.
 *
 * The index is sparse and small: only the statuses in `INDEXED_STATUSES` are keyed, and it
 * projects `type`, `orderingKey` and `updatedAt`, so filters on those run in DynamoDB; readers
 * get the rest from the items. A read's cost is what DynamoDB reads from the index, not what
 * it returns: see docs/status-index.md. {@link StatusIndex} is the operator reads' door to it
 * (counts, filtered lists, watching), with the items they read and the Scan of the statuses
 * the index leaves out.
 */
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TableSchema, type TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import { getItems } from './batch-get.js';
import { fromItem, statusShardKey } from './record.js';
import { INDEXED_STATUSES } from './status-index-keys.js';
import { type ScanOptions, type ScanPage, scanStatuses } from './status-scan.js';

/** What a read of the index needs of the store. */
export interface IndexContext {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly statusShards: number;
}

/** A key of the index (the table's key and the index's), where a Query stopped. */
export type IndexKey = Record<string, unknown>;

/** A Query of one partition of the index; the time range is on its sort key, `statusAt`. */
export interface PartitionQuery {
  /** The partition key's value: `status#shard`, `RELEASE#shard`, the park items'. */
  readonly partition: string;
  /** Keep entries with `statusAt >= from`. */
  readonly from?: number | undefined;
  /** Keep entries with `statusAt <= to`. */
  readonly to?: number | undefined;
  /** Keep entries with `statusAt < before`. */
  readonly before?: number | undefined;
  /** Attribute equalities applied as a FilterExpression (read, then dropped by DynamoDB). */
  readonly equals?: Readonly<Record<string, string | number | undefined>>;
  /** Keep entries with this attribute at or above the value (a FilterExpression). */
  readonly atLeast?: { readonly attribute: string; readonly value: number };
  readonly newestFirst?: boolean;
  /** Attributes to return; every projected one by default. */
  readonly projection?: readonly string[];
}

/** How {@link partitionPages} reads. */
export interface PageOptions {
  /** Where to start: a page's `nextKey`. */
  readonly startKey?: IndexKey | undefined;
  /** Entries to evaluate for the next page (DynamoDB's `Limit`), asked before each page. */
  readonly limit?: () => number | undefined;
  /** Count the entries (`Select: COUNT`) instead of returning them. */
  readonly count?: boolean;
  /** Ask DynamoDB for the read capacity each page consumed. */
  readonly capacity?: boolean;
}

/** One Query's page of a partition. */
export interface PartitionPage {
  /** The entries (none with `count`). */
  readonly items: readonly Record<string, unknown>[];
  /** How many entries the page matched. */
  readonly count: number;
  /** Read capacity the page consumed, when asked for (0 where the endpoint reports none). */
  readonly readUnits: number;
  /** Where the next page starts; undefined after the partition's last page. */
  readonly nextKey: IndexKey | undefined;
}

/**
 * Reads one partition of the index a Query page at a time, from `startKey` on: the next page
 * is read only when the caller asks for it, so a caller stops where it has enough (and may
 * resume later from the last page's `nextKey`). A page may be empty and still not the last
 * one (a FilterExpression drops what it read).
 */
export async function* partitionPages(
  index: Pick<IndexContext, 'doc' | 'tableName'>,
  query: PartitionQuery,
  options: PageOptions = {},
): AsyncGenerator<PartitionPage, void, undefined> {
  const input = queryInput(index.tableName, query);
  let startKey = options.startKey;
  do {
    const limit = options.limit?.();
    const out = await index.doc.send(
      new QueryCommand({
        ...input,
        ...(options.count === true ? { Select: 'COUNT' as const } : {}),
        ...(options.capacity === true ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
        ...(limit === undefined ? {} : { Limit: limit }),
        ExclusiveStartKey: startKey,
      }),
    );
    startKey = out.LastEvaluatedKey;
    const items = out.Items ?? [];
    yield {
      items,
      count: out.Count ?? items.length,
      readUnits: out.ConsumedCapacity?.CapacityUnits ?? 0,
      nextKey: startKey,
    };
  } while (startKey !== undefined);
}

/** The Query of a {@link PartitionQuery}, without paging parameters. */
function queryInput(tableName: string, query: PartitionQuery) {
  const names: Record<string, string> = { '#pk': TableSchema.STATUS_INDEX_PARTITION_KEY };
  const values: Record<string, unknown> = { ':pk': query.partition };
  let keyCondition = '#pk = :pk';
  if (query.from !== undefined || query.to !== undefined) {
    names['#sk'] = TableSchema.STATUS_INDEX_SORT_KEY;
    values[':from'] = query.from ?? 0;
    values[':to'] = query.to ?? Number.MAX_SAFE_INTEGER;
    keyCondition += ' AND #sk BETWEEN :from AND :to';
  } else if (query.before !== undefined) {
    names['#sk'] = TableSchema.STATUS_INDEX_SORT_KEY;
    values[':before'] = query.before;
    keyCondition += ' AND #sk < :before';
  }
  const filters: string[] = [];
  Object.entries(query.equals ?? {}).forEach(([attribute, value], i) => {
    if (value === undefined) return;
    names[`#f${i}`] = attribute;
    values[`:f${i}`] = value;
    filters.push(`#f${i} = :f${i}`);
  });
  if (query.atLeast !== undefined) {
    names['#min'] = query.atLeast.attribute;
    values[':min'] = query.atLeast.value;
    filters.push('#min >= :min');
  }
  const projection = query.projection?.map((attribute, i) => {
    names[`#p${i}`] = attribute;
    return `#p${i}`;
  });
  return {
    TableName: tableName,
    IndexName: TableSchema.STATUS_INDEX,
    KeyConditionExpression: keyCondition,
    ...(filters.length === 0 ? {} : { FilterExpression: filters.join(' AND ') }),
    ...(projection === undefined ? {} : { ProjectionExpression: projection.join(', ') }),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ...(query.newestFirst === true ? { ScanIndexForward: false } : {}),
  };
}

/** The table's key of an index entry: its task's id (or its item's key). */
export function entryId(entry: Record<string, unknown>): string {
  return String(entry[TableSchema.PARTITION_KEY]);
}

/** One partition of the index: a status and a shard. */
export interface IndexStream {
  readonly status: TaskStatus;
  readonly shard: number;
}

/** A Query of one status's shard (see {@link PartitionQuery}). */
export type StreamQuery = Omit<PartitionQuery, 'partition' | 'projection' | 'before'> & {
  readonly stream: IndexStream;
};

/**
 * The operator reads' door to the index: its partitions, their entries and counts, the items
 * behind the entries, and the Scan of the statuses the index leaves out. Reads only.
 */
export class StatusIndex {
  constructor(private readonly ctx: IndexContext) {}

  /** The status shards the index is read over. */
  get statusShards(): number {
    return this.ctx.statusShards;
  }

  /** Every partition of the given statuses (every keyed status by default). */
  streams(statuses: readonly TaskStatus[] = INDEXED_STATUSES): IndexStream[] {
    return statuses.flatMap((status) =>
      Array.from({ length: this.ctx.statusShards }, (_, shard) => ({ status, shard })),
    );
  }

  /**
   * Reads one partition page by page until `limit` entries are kept or the partition ends.
   * Returns the entries and the read capacity DynamoDB reported for them.
   */
  async read(
    query: StreamQuery,
    options: {
      limit?: number;
      projection?: readonly string[];
      /** Drops entries client-side; only kept entries count toward `limit`. */
      keep?: (item: Record<string, unknown>) => boolean;
    } = {},
  ): Promise<{ items: Record<string, unknown>[]; readUnits: number }> {
    const { limit, keep } = options;
    const items: Record<string, unknown>[] = [];
    let readUnits = 0;
    const pages = partitionPages(this.ctx, partitionOf(query, options.projection), {
      capacity: true,
      ...(limit === undefined ? {} : { limit: () => Math.max(limit - items.length, 10) }),
    });
    for await (const page of pages) {
      items.push(...(keep === undefined ? page.items : page.items.filter(keep)));
      readUnits += page.readUnits;
      if (limit !== undefined && items.length >= limit) break;
    }
    return { items, readUnits };
  }

  /** Counts one partition's entries with `Select: COUNT`, page by page (1 MB read per page). */
  async count(query: StreamQuery): Promise<{ count: number; readUnits: number }> {
    let count = 0;
    let readUnits = 0;
    const pages = partitionPages(this.ctx, partitionOf(query), { count: true, capacity: true });
    for await (const page of pages) {
      count += page.count;
      readUnits += page.readUnits;
    }
    return { count, readUnits };
  }

  /** The records of `ids` (duplicates read once), read consistently; absent when gone. */
  async records(ids: readonly string[]): Promise<Map<string, TaskRecord>> {
    const found = await getItems(this.ctx.doc, this.ctx.tableName, ids, { consistent: true });
    return new Map([...found].map(([id, item]) => [id, fromItem(item)]));
  }

  /**
   * The tasks in `statuses`, from a Scan of the whole table: for the statuses the index does
   * not key. It reads, and is charged for, every item of the table.
   */
  scan(
    statuses: readonly TaskStatus[],
    options: ScanOptions = {},
  ): AsyncGenerator<ScanPage, void, undefined> {
    return scanStatuses(this.ctx.doc, this.ctx.tableName, statuses, options);
  }
}

function partitionOf(query: StreamQuery, projection?: readonly string[]): PartitionQuery {
  const { stream, ...rest } = query;
  return {
    ...rest,
    partition: statusShardKey(stream.status, stream.shard),
    ...(projection === undefined ? {} : { projection }),
  };
}
