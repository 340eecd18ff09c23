/**
 * What a TaskStore is built from: its options, and the context its writes share (the document
 * client, the table, the status shards, the clock and the audit logger).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { defaultLogger, type TaskLogger } from '../observability/logger.js';
import type { Retention } from '../settings/retention.js';

/** What every write of one store shares. */
export interface WriteContext {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly statusShards: number;
  /** How long a finished task is kept (its TTL). */
  readonly retention: Retention;
  readonly clock: () => number;
  readonly logger: TaskLogger;
}

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
  retention: Retention,
  clock: () => number,
): WriteContext {
  return {
    retention,
    doc: DynamoDBDocumentClient.from(options.dynamodb, {
      marshallOptions: { removeUndefinedValues: true },
    }),
    tableName: options.tableName,
    statusShards,
    clock,
    logger: options.logger ?? defaultLogger(),
  };
}
