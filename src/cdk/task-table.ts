/** The executor's DynamoDB task table, built from the shared settings. */
import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { TableSettings } from '../settings/executor.js';
import type { TaskExecutorProps } from './task-executor-props.js';

/**
 * The task table: keyed by `pk`, on demand, PITR, TTL, deletion protection and RETAIN by
 * default, encrypted with the executor's key when it has one, a stream of every write's old
 * and new item (which `watch()` reads), and the sparse status index that the sweeper and
 * `list()` query.
 */
export function createTaskTable(
  scope: Construct,
  id: string,
  table: TableSettings,
  props: Pick<TaskExecutorProps, 'deletionProtection' | 'removalPolicy' | 'encryptionKey'>,
): Table {
  const result = new Table(scope, id, {
    tableName: table.name,
    partitionKey: { name: table.partitionKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    timeToLiveAttribute: table.ttlAttribute,
    // Read by watch() and `tasklane tail`; enabling it adds no write (docs/adr/0049-watch-reads-the-table-stream.md).
    stream: StreamViewType[table.streamViewType],
    deletionProtection: props.deletionProtection ?? true,
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    ...(props.encryptionKey
      ? { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }
      : {}),
  });
  // Sparse and small: only records in a status the sweeper or operators act on carry the
  // keys, and entries hold a few attributes besides them (docs/adr/0021-sparse-status-index.md).
  result.addGlobalSecondaryIndex({
    indexName: table.statusIndex.name,
    partitionKey: { name: table.statusIndex.partitionKey, type: AttributeType.STRING },
    sortKey: { name: table.statusIndex.sortKey, type: AttributeType.NUMBER },
    projectionType: ProjectionType.INCLUDE,
    nonKeyAttributes: [...table.statusIndex.projection],
  });
  return result;
}
