/** Clients of a local executor, bound to the emulator with its dummy credentials. */

import { S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../aws/clients.js';
import { DynamoDBClient } from '../store/table.js';
import { EMULATOR_ACCESS_KEY_ID } from './emulator-env.js';

/** The clients a local executor's worker, pump and sweeper share. */
export type Clients = {
  sqs: SQSClient;
  dynamodb: DynamoDBClient;
  scheduler: SchedulerClient;
  s3: S3Client;
};

/** Clients bound to the emulator with dummy credentials, whatever the environment says. */
export function emulatorClients(endpoint: string, accessKeyId = EMULATOR_ACCESS_KEY_ID): Clients {
  const config = emulatorConfig(endpoint, accessKeyId);
  return {
    // Never follow a queue URL to its host: emulators report AWS's.
    sqs: new SQSClient({ ...config, useQueueUrlAsEndpoint: false }),
    dynamodb: new DynamoDBClient(config),
    scheduler: new SchedulerClient(config),
    // One host serves every bucket: path-style addressing.
    s3: new S3Client({ ...config, forcePathStyle: true }),
  };
}

/** The configuration of a client bound to the emulator with dummy credentials. */
export function emulatorConfig(endpoint: string, accessKeyId = EMULATOR_ACCESS_KEY_ID) {
  return {
    ...awsClientConfig(),
    endpoint,
    region: process.env.AWS_REGION || 'us-east-1',
    credentials: { accessKeyId, secretAccessKey: 'test' },
  };
}
