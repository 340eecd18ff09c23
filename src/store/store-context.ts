/**
 * What a TaskStore is built from: its options, and the context its writes share (the document
 * client, the table, the status shards, the clock and the audit logger).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { defaultLogger, type TaskLogger } from '../observability/logger.js';
import type { WriteContext } from './record-writes.js';
import type { Retention } from './retention.js';

/** Options of {@link TaskStore}. */
export interface TaskStoreOptions {
  readonly tableName: string;
  readonly dynamodb: DynamoDBClient;
  /** @default Defaults.STATUS_SHARDS */
  readonly statusShards?: number;
  /**
   * How long a SUCCEEDED or CANCELLED task is kept (its id stays reserved) before DynamoDB's
   * TTL removes it: milliseconds, or `'forever'` (no TTL attribute is written). DEAD tasks
   * never get one. @default 30 days
   */
  readonly retention?: Retention;
  /** @default Date.now */
  readonly clock?: () => number;
  /** Receives one structured audit line per transition. */
  readonly logger?: TaskLogger;
}

/** The context every write of one store shares. */
export function writeContext(
  options: TaskStoreOptions,
  statusShards: number,
  clock: () => number,
): WriteContext {
  return {
    doc: DynamoDBDocumentClient.from(options.dynamodb, {
      marshallOptions: { removeUndefinedValues: true },
    }),
    tableName: options.tableName,
    statusShards,
    clock,
    logger: options.logger ?? defaultLogger(),
  };
}
