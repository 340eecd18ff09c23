/**
 * The client's calls to the table and the dead-letter queue, with a permanent fault (no
 * such resource, access denied, no endpoint) turned into a ConfigurationError that names the
 * resource and the setting to fix.
 */

import type { SQSClient } from '@aws-sdk/client-sqs';
import { type AwsCallTarget, AwsService, toConfigurationError } from '../aws/faults.js';
import { EnvVars } from '../settings/location.js';
import type { DynamoDBClient } from '../store/table.js';

/** The table a call goes to. */
export interface TableCall {
  readonly tableName: string;
  readonly dynamodb: DynamoDBClient;
}

/** Runs a call, turning a permanent fault into the ConfigurationError `toConfigurationError` makes. */
async function guarded<T>(call: () => Promise<T>, target: AwsCallTarget): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw (await toConfigurationError(err, target)) ?? err;
  }
}

/** Runs a table call, turning a permanent fault into a ConfigurationError naming the table. */
export function onTable<T>(table: TableCall, call: () => Promise<T>): Promise<T> {
  return guarded(call, {
    kind: 'table',
    resource: table.tableName,
    client: table.dynamodb,
    service: AwsService.DYNAMODB,
    setting: `tableName (or ${EnvVars.TABLE_NAME})`,
  });
}

/** Runs a DLQ call, turning a permanent fault into a ConfigurationError naming the queue. */
export function onDeadLetterQueue<T>(
  sqs: SQSClient,
  url: string,
  call: () => Promise<T>,
): Promise<T> {
  return guarded(call, {
    kind: 'dead-letter queue',
    resource: url,
    client: sqs,
    service: AwsService.SQS,
    setting: `deadLetterQueueUrl (or ${EnvVars.DLQ_URL})`,
  });
}
