/**
 * The one Scan of the table: how operators count and list tasks in the statuses the sparse
 * status index leaves out (RUNNING, SUCCEEDED, CANCELLED, ROLLED_BACK) and the QUEUED tasks it
 * leaves out (a retry's, docs/adr/0068-a-retry-stays-off-the-index.md). It reads every item of the
 * table, whatever it returns, so only operator reads and the sweeper's opt-in scan use it, never a
 * scheduled sweep or a worker
 * (docs/adr/0021-sparse-status-index.md, docs/status-index.md).
 */
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { TableSchema, TaskStatus } from '../core/constants.js';

/** One page of {@link scanStatuses}. */
export interface ScanPage {
  readonly items: Record<string, unknown>[];
  /** Where the next page starts; undefined after the last page. */
  readonly nextKey: Record<string, unknown> | undefined;
  /** Read capacity DynamoDB reported for the page (0 where the endpoint reports none). */
  readonly readUnits: number;
}

/** Options of {@link scanStatuses}. */
export interface ScanOptions {
  /** Attributes to return; all by default. */
  readonly projection?: readonly string[];
  /** Resume from a page's `nextKey`. */
  readonly startKey?: Record<string, unknown> | undefined;
  /** Items evaluated per page (DynamoDB's `Limit`). @default up to 1 MB per page */
  readonly pageSize?: number;
  /**
   * Also return the QUEUED tasks off the index: those waiting out a retry delay
   * (docs/adr/0068-a-retry-stays-off-the-index.md). @default false
   */
  readonly offIndexQueued?: boolean;
}

/**
 * Scans the table for tasks in `statuses`, page by page (a FilterExpression on `status`:
 * DynamoDB reads, and charges for, every item of the table).
 */
export async function* scanStatuses(
  doc: DynamoDBDocumentClient,
  tableName: string,
  statuses: readonly TaskStatus[],
  options: ScanOptions = {},
): AsyncGenerator<ScanPage, void, undefined> {
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, string> = Object.fromEntries(
    statuses.map((status, i) => [`:s${i}`, status]),
  );
  const filters = statuses.length === 0 ? [] : [`#status IN (${Object.keys(values).join(', ')})`];
  if (options.offIndexQueued === true) {
    // An index entry needs its partition key: a QUEUED item without one is off the index.
    names['#statusShard'] = TableSchema.STATUS_INDEX_PARTITION_KEY;
    values[':queuedOff'] = TaskStatus.QUEUED;
    filters.push('(#status = :queuedOff AND attribute_not_exists(#statusShard))');
  }
  if (filters.length === 0) return;
  const projection = options.projection?.map((attribute, i) => {
    names[`#p${i}`] = attribute;
    return `#p${i}`;
  });
  let startKey = options.startKey;
  do {
    const out = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: filters.join(' OR '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ...(projection === undefined ? {} : { ProjectionExpression: projection.join(', ') }),
        ...(options.pageSize === undefined ? {} : { Limit: options.pageSize }),
        ExclusiveStartKey: startKey,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    startKey = out.LastEvaluatedKey;
    yield {
      items: out.Items ?? [],
      nextKey: startKey,
      readUnits: out.ConsumedCapacity?.CapacityUnits ?? 0,
    };
  } while (startKey !== undefined);
}
