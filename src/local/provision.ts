import {
  CreateTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ExecutorSettings } from '../resources.js';

/** What {@link provision} created or found. */
export interface ProvisionedExecutor {
  readonly tableName: string;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
}

/**
 * Creates the executor's queues and table in an emulator (or any account), from the same
 * settings the CDK construct uses. Idempotent: existing resources are reused.
 */
export async function provision(
  settings: ExecutorSettings,
  clients: { sqs: SQSClient; dynamodb: DynamoDBClient },
): Promise<ProvisionedExecutor> {
  const { sqs, dynamodb } = clients;
  const dlq = await sqs.send(
    new CreateQueueCommand({
      QueueName: settings.deadLetterQueue.name,
      Attributes: { ...settings.deadLetterQueue.attributes },
    }),
  );
  const dlqUrl = dlq.QueueUrl ?? '';
  const dlqAttrs = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  const work = await sqs.send(
    new CreateQueueCommand({
      QueueName: settings.workQueue.name,
      Attributes: {
        ...settings.workQueue.attributes,
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqAttrs.Attributes?.QueueArn,
          maxReceiveCount: settings.maxReceiveCount,
        }),
      },
    }),
  );
  const { table } = settings;
  try {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: table.name,
        BillingMode: 'PAY_PER_REQUEST',
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
            Projection: { ProjectionType: 'ALL' },
          },
        ],
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
  return { tableName: table.name, queueUrl: work.QueueUrl ?? '', deadLetterQueueUrl: dlqUrl };
}
