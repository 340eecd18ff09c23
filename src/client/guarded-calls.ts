/**
 * The client's calls to the table and the dead-letter queue, with a permanent fault (no
 * such resource, access denied, no endpoint) turned into a ConfigurationError that names the
 * resource and the setting to fix.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { AwsService, toConfigurationError } from '../aws-errors.js';
import { EnvVars } from '../config.js';

/** The table a call goes to. */
export interface TableCall {
  readonly tableName: string;
  readonly dynamodb: DynamoDBClient;
}

/** Runs a table call, turning a permanent fault into a ConfigurationError naming the table. */
export async function onTable<T>(table: TableCall, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw (
      (await toConfigurationError(err, {
        kind: 'table',
        resource: table.tableName,
        client: table.dynamodb,
        service: AwsService.DYNAMODB,
        setting: `tableName (or ${EnvVars.TABLE_NAME})`,
      })) ?? err
    );
  }
}

/** Runs a DLQ call, turning a permanent fault into a ConfigurationError naming the queue. */
export async function onDeadLetterQueue<T>(
  sqs: SQSClient,
  url: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw (
      (await toConfigurationError(err, {
        kind: 'dead-letter queue',
        resource: url,
        client: sqs,
        service: AwsService.SQS,
        setting: `deadLetterQueueUrl (or ${EnvVars.DLQ_URL})`,
      })) ?? err
    );
  }
}
