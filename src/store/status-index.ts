/**
 * Read access to the table's sharded status index for the operator reads (counts, filtered
 * lists, watching). Every read here is a Query on one `status#shard` partition.
 *
 * The index is sparse and small (docs/adr/0021-sparse-status-index.md): only the statuses
 * in `INDEXED_STATUSES` are keyed, and it projects `type`, `orderingKey` and `updatedAt`, so
 * filters on those run in DynamoDB; readers get the rest from the items. A read's cost is
 * what DynamoDB reads from the index, not what it returns: see docs/status-index.md.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { TableSchema, type TaskStatus } from '../core/constants.js';
import { statusShardKey } from './record.js';
import { INDEXED_STATUSES } from './status-index-keys.js';

/** What a status index read needs. */
export interface StatusIndex {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly statusShards: number;
}

/** Builds a {@link StatusIndex} over a DynamoDB client. */
export function statusIndex(
  dynamodb: DynamoDBClient,
  tableName: string,
  statusShards: number,
): StatusIndex {
  return { doc: DynamoDBDocumentClient.from(dynamodb), tableName, statusShards };
}

/** One partition of the index: a status and a shard. */
export interface IndexStream {
  readonly status: TaskStatus;
  readonly shard: number;
}

/** Every partition of the given statuses (every keyed status by default). */
export function indexStreams(
  index: Pick<StatusIndex, 'statusShards'>,
  statuses: readonly TaskStatus[] = INDEXED_STATUSES,
): IndexStream[] {
  return statuses.flatMap((status) =>
    Array.from({ length: index.statusShards }, (_, shard) => ({ status, shard })),
  );
}

/** A Query on one partition; the time range is on the index's sort key, `statusAt`. */
export interface StreamQuery {
  readonly stream: IndexStream;
  /** Keep entries with `statusAt >= from`. */
  readonly from?: number | undefined;
  /** Keep entries with `statusAt <= to`. */
  readonly to?: number | undefined;
  /** Attribute equalities applied as a FilterExpression (read, then dropped by DynamoDB). */
  readonly equals?: Readonly<Record<string, string | number | undefined>>;
  /** Keep entries with this attribute at or above the value (a FilterExpression). */
  readonly atLeast?: { readonly attribute: string; readonly value: number };
  readonly newestFirst?: boolean;
}

/** Builds the QueryCommand input of a {@link StreamQuery}, without paging parameters. */
export function queryInput(index: StatusIndex, query: StreamQuery): QueryCommandInput {
  const names: Record<string, string> = { '#pk': TableSchema.STATUS_INDEX_PARTITION_KEY };
  const values: Record<string, unknown> = {
    ':pk': statusShardKey(query.stream.status, query.stream.shard),
  };
  let keyCondition = '#pk = :pk';
  if (query.from !== undefined || query.to !== undefined) {
    names['#sk'] = TableSchema.STATUS_INDEX_SORT_KEY;
    values[':from'] = query.from ?? 0;
    values[':to'] = query.to ?? Number.MAX_SAFE_INTEGER;
    keyCondition += ' AND #sk BETWEEN :from AND :to';
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
  return {
    TableName: index.tableName,
    IndexName: TableSchema.STATUS_INDEX,
    KeyConditionExpression: keyCondition,
    ...(filters.length === 0 ? {} : { FilterExpression: filters.join(' AND ') }),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: query.newestFirst !== true,
    ReturnConsumedCapacity: 'TOTAL',
  };
}

/**
 * Reads one partition page by page until `enough(itemsSoFar)` or the partition ends.
 * Returns the items and the read capacity DynamoDB reported for them.
 */
export async function readStream(
  index: StatusIndex,
  query: StreamQuery,
  options: {
    limit?: number;
    projection?: readonly string[];
    /** Drops entries client-side; only kept entries count toward `limit`. */
    keep?: (item: Record<string, unknown>) => boolean;
  } = {},
): Promise<{ items: Record<string, unknown>[]; readUnits: number }> {
  const input = queryInput(index, query);
  if (options.projection !== undefined) {
    const names = { ...input.ExpressionAttributeNames };
    const projected = options.projection.map((attribute, i) => {
      names[`#p${i}`] = attribute;
      return `#p${i}`;
    });
    input.ProjectionExpression = projected.join(', ');
    input.ExpressionAttributeNames = names;
  }
  const items: Record<string, unknown>[] = [];
  let readUnits = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await index.doc.send(
      new QueryCommand({
        ...input,
        ExclusiveStartKey: startKey,
        ...(options.limit === undefined
          ? {}
          : { Limit: Math.max(options.limit - items.length, 10) }),
      }),
    );
    const page = out.Items ?? [];
    items.push(...(options.keep === undefined ? page : page.filter(options.keep)));
    readUnits += out.ConsumedCapacity?.CapacityUnits ?? 0;
    startKey = out.LastEvaluatedKey;
  } while (startKey !== undefined && (options.limit === undefined || items.length < options.limit));
  return { items, readUnits };
}

/** Counts one partition's entries with `Select: COUNT`, page by page (1 MB read per page). */
export async function countStream(
  index: StatusIndex,
  query: StreamQuery,
): Promise<{ count: number; readUnits: number }> {
  const input = queryInput(index, query);
  let count = 0;
  let readUnits = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await index.doc.send(
      new QueryCommand({ ...input, Select: 'COUNT', ExclusiveStartKey: startKey }),
    );
    count += out.Count ?? 0;
    readUnits += out.ConsumedCapacity?.CapacityUnits ?? 0;
    startKey = out.LastEvaluatedKey;
  } while (startKey !== undefined);
  return { count, readUnits };
}
