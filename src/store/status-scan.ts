/**
 * The one Scan of the table: how operators count and list tasks in the statuses the sparse
 * status index leaves out (SUCCEEDED, CANCELLED, ROLLED_BACK). It reads every item of the
 * table, whatever it returns, so only operator reads use it, never the sweeper or a worker
 * (docs/adr/0021-sparse-status-index.md, docs/status-index.md).
 */
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { TaskStatus } from '../core/constants.js';

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
  const values = Object.fromEntries(statuses.map((status, i) => [`:s${i}`, status]));
  const projection = options.projection?.map((attribute, i) => {
    names[`#p${i}`] = attribute;
    return `#p${i}`;
  });
  let startKey = options.startKey;
  do {
    const out = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: `#status IN (${Object.keys(values).join(', ')})`,
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
