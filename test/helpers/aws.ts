/** AWS client helpers for integration tests. */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig, s3ClientConfig } from '../../src/aws/clients.js';

/**
 * SDK clients for the emulator: the endpoint the integration setup put in AWS_ENDPOINT_URL
 * and dummy credentials, both given explicitly so that no other variable (a service's
 * endpoint, a session token) can redirect or sign them. The SQS client never follows a
 * queue URL to its host (emulators report AWS's host), so it cannot reach real AWS.
 */
export function testClients(): {
  sqs: SQSClient;
  dynamodb: DynamoDBClient;
  scheduler: SchedulerClient;
} {
  const config = emulatorConfig('test');
  return {
    sqs: new SQSClient({ ...config, useQueueUrlAsEndpoint: false }),
    dynamodb: new DynamoDBClient(config),
    scheduler: new SchedulerClient(config),
  };
}

/**
 * An SQS client for the emulator that signs with `accessKeyId`, which the emulator reports
 * as the SenderId of what it sends: the schedule pump's own credentials.
 */
export function schedulerPumpSqs(accessKeyId: string): SQSClient {
  return new SQSClient({ ...emulatorConfig(accessKeyId), useQueueUrlAsEndpoint: false });
}

/** A DynamoDB Streams client for the emulator, configured as {@link testClients}' are. */
export function testStreams(): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient(emulatorConfig('test'));
}

/** An EventBridge client for the emulator, configured as {@link testClients}' are. */
export function testEventBridge(extra: { readonly maxAttempts?: number } = {}): EventBridgeClient {
  return new EventBridgeClient({ ...emulatorConfig('test'), ...extra });
}

/**
 * An S3 client for the emulator's claim-check buckets: the claim check's own configuration
 * (path-style under an endpoint override) with the test credentials.
 */
export function testS3(): S3Client {
  return new S3Client({
    ...s3ClientConfig(),
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
}

function emulatorConfig(accessKeyId: string) {
  const endpoint = process.env.AWS_ENDPOINT_URL;
  return {
    region: 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
    credentials: { accessKeyId, secretAccessKey: 'test' },
  };
}

/**
 * `prefix` plus a short random suffix, e.g. `jobs-3f9a1c2b`. Keeps tests independent on
 * emulators that cannot be reset. Output uses only [a-z0-9-], valid for SQS and DynamoDB names.
 */
export function uniqueName(prefix: string): string {
  const safePrefix = prefix.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return `${safePrefix}-${randomBytes(4).toString('hex')}`;
}

export const REGION = 'us-east-1';

/** The SQS and DynamoDB clients an executor's parts are given. */
export interface AwsClients {
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
}

/**
 * SDK clients configured as Tasklane configures its own (standard retries, 5 attempts), for
 * the fault suite, where the SDK's retries are part of what is tested. The endpoint comes
 * from AWS_ENDPOINT_URL, which the test setup points at the emulator.
 */
export function tasklaneClients(): AwsClients {
  return {
    sqs: new SQSClient({ ...awsClientConfig(), region: REGION }),
    dynamodb: new DynamoDBClient({ ...awsClientConfig(), region: REGION }),
  };
}

/** A Scheduler client configured as {@link tasklaneClients} are. */
export function tasklaneScheduler(): SchedulerClient {
  return new SchedulerClient({ ...awsClientConfig(), region: REGION });
}
