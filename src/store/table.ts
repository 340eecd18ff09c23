/**
 * The task table as DynamoDB knows it, and the store's door to the DynamoDB SDK. Outside
 * store/, no module of the package imports the SDK's DynamoDB clients (a lint rule,
 * docs/adr/0045-the-store-owns-dynamodb.md): the client, the worker and the sweeper make or
 * take a {@link DynamoDBClient} from here and hand it to the store, and the local executor
 * creates the table with {@link createTable}.
 */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { TableSettings } from '../settings/executor.js';

/**
 * The DynamoDB client the store is built on: the type of an injected client (the `dynamodb`
 * option of the client, the worker and the sweeper), and the class they make one with.
 */
export { DynamoDBClient };

/**
 * The table's keys and status index in the shape that DynamoDB's CreateTable and
 * CloudFormation's AWS::DynamoDB::Table share. Provisioning sends it as it is; the infra
 * tests check that the CDK construct synthesizes the same.
 */
export function tableKeyDefinition(table: TableSettings): {
  [K in 'AttributeDefinitions' | 'KeySchema' | 'GlobalSecondaryIndexes']-?: NonNullable<
    CreateTableCommandInput[K]
  >;
} {
  return {
    AttributeDefinitions: [
      { AttributeName: table.partitionKey, AttributeType: 'S' },
      { AttributeName: table.statusIndex.partitionKey, AttributeType: 'S' },
      { AttributeName: table.statusIndex.sortKey, AttributeType: 'N' },
    ],
    KeySchema: [{ AttributeName: table.partitionKey, KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [
      {
        IndexName: table.statusIndex.name,
        KeySchema: [
          { AttributeName: table.statusIndex.partitionKey, KeyType: 'HASH' },
          { AttributeName: table.statusIndex.sortKey, KeyType: 'RANGE' },
        ],
        Projection: {
          ProjectionType: 'INCLUDE',
          NonKeyAttributes: [...table.statusIndex.projection],
        },
      },
    ],
  };
}

/**
 * Creates the table from `table` (on demand, with its TTL and its stream), in an emulator or any account,
 * and waits until it exists. Idempotent: an existing table is reused as it is.
 */
export async function createTable(dynamodb: DynamoDBClient, table: TableSettings): Promise<void> {
  try {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: table.name,
        BillingMode: 'PAY_PER_REQUEST',
        ...tableKeyDefinition(table),
        // What watch() and `tasklane tail` read, as the construct enables it.
        StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamViewType },
      }),
    );
    await waitUntilTableExists({ client: dynamodb, maxWaitTime: 60 }, { TableName: table.name });
    await dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: table.name,
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
      }),
    );
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
}
