/** AWS client helpers for integration tests. */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * SDK clients for the emulator. The endpoint and credentials come from the environment
 * (AWS_ENDPOINT_URL etc., set by the integration setup), so only the region is pinned here.
 * The SQS client never follows a queue URL to its host (emulators report AWS's host), so it
 * cannot reach real AWS.
 */
export function testClients(): {
  sqs: SQSClient;
  dynamodb: DynamoDBClient;
  scheduler: SchedulerClient;
} {
  const region = 'us-east-1';
  return {
    sqs: new SQSClient({ region, useQueueUrlAsEndpoint: false }),
    dynamodb: new DynamoDBClient({ region }),
    scheduler: new SchedulerClient({ region }),
  };
}

/**
 * An SQS client for the emulator that signs with `accessKeyId`, which the emulator reports
 * as the SenderId of what it sends: the schedule pump's own credentials.
 */
export function schedulerPumpSqs(accessKeyId: string): SQSClient {
  return new SQSClient({
    region: 'us-east-1',
    useQueueUrlAsEndpoint: false,
    credentials: { accessKeyId, secretAccessKey: 'test' },
  });
}

/**
 * `prefix` plus a short random suffix, e.g. `jobs-3f9a1c2b`. Keeps tests independent on
 * emulators that cannot be reset. Output uses only [a-z0-9-], valid for SQS and DynamoDB names.
 */
export function uniqueName(prefix: string): string {
  const safePrefix = prefix.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return `${safePrefix}-${randomBytes(4).toString('hex')}`;
}
