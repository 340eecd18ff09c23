/**
 * The emulator a benchmark run uses, and the resources each measurement provisions in it.
 *
 * Unless AWS_ENDPOINT_URL names one, the run starts its own moto through `startEmulator`,
 * with `bench/emulator/sitecustomize.py` on PYTHONPATH: it removes moto hot spots that real
 * SQS does not have (see that file). Every measurement provisions fresh, uniquely named
 * resources and deletes them afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DeleteTableCommand,
  type DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import { DeleteQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { startEmulator } from '../../src/local/index.js';
import {
  emulatorEnvironment,
  type ProvisionedScheduler,
  provision,
} from '../../src/local/testing/index.js';
import { executorSettings } from '../../src/settings/executor.js';

const PATCH_DIR = fileURLToPath(new URL('../emulator', import.meta.url));

/** The emulator in use. */
export interface BenchEmulator {
  readonly endpoint: string;
  /** True when this run started moto (with the bench patches); false for AWS_ENDPOINT_URL. */
  readonly started: boolean;
  readonly log: string | undefined;
  stop(): Promise<void>;
}

/**
 * Starts moto, or adopts AWS_ENDPOINT_URL, and points this process's SDK clients at it.
 *
 * @throws Error when AWS_ENDPOINT_URL is a real AWS endpoint.
 */
export async function startBenchEmulator(): Promise<BenchEmulator> {
  const given = process.env.AWS_ENDPOINT_URL;
  if (given) {
    if (/(^|\.)amazonaws\.com(\.cn)?$/i.test(new URL(given).hostname)) {
      throw new Error(
        `AWS_ENDPOINT_URL=${given} is a real AWS endpoint; the bench needs an emulator`,
      );
    }
    Object.assign(process.env, emulatorEnvironment(given));
    return { endpoint: given, started: false, log: undefined, stop: async () => undefined };
  }
  const log = path.join(await mkdtemp(path.join(tmpdir(), 'tasklane-bench-')), 'moto.log');
  const previous = process.env.PYTHONPATH;
  process.env.PYTHONPATH = [PATCH_DIR, previous].filter(Boolean).join(path.delimiter);
  try {
    const emulator = await startEmulator({ log });
    Object.assign(process.env, emulatorEnvironment(emulator.endpoint));
    return { endpoint: emulator.endpoint, started: true, log, stop: () => emulator.stop() };
  } finally {
    if (previous === undefined) delete process.env.PYTHONPATH;
    else process.env.PYTHONPATH = previous;
  }
}

/** A unique resource-name prefix, e.g. `bench-3f9a1c2b-e2e`. */
export function uniqueName(label: string): string {
  return `bench-${randomBytes(4).toString('hex')}-${label}`;
}

/** A provisioned Tasklane executor (work queue, DLQ, task table). */
export interface BenchExecutor {
  readonly tableName: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  /** The schedule groups and roles, when provisioned with a Scheduler client. */
  readonly scheduler: ProvisionedScheduler | undefined;
  destroy(): Promise<void>;
}

/**
 * Provisions a fresh executor from the same settings the CDK construct uses; with a
 * Scheduler client, its schedule groups too (left to the emulator's end: nothing reads them).
 */
export async function createExecutor(
  clients: { sqs: SQSClient; dynamodb: DynamoDBClient; scheduler?: SchedulerClient },
  label: string,
  workerTimeoutSeconds = 60,
): Promise<BenchExecutor> {
  const settings = executorSettings({ name: uniqueName(label), workerTimeoutSeconds });
  const location = await provision(settings, clients);
  const attrs = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: location.queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return {
    tableName: location.tableName,
    queueUrl: location.queueUrl,
    queueArn: attrs.Attributes?.QueueArn ?? '',
    scheduler: location.scheduler,
    destroy: async () => {
      await clients.sqs.send(new DeleteQueueCommand({ QueueUrl: location.queueUrl }));
      await clients.sqs.send(new DeleteQueueCommand({ QueueUrl: location.deadLetterQueueUrl }));
      await clients.dynamodb.send(new DeleteTableCommand({ TableName: location.tableName }));
    },
  };
}

/** Creates a table with the key schema Powertools' DynamoDB persistence layer expects. */
export async function createIdempotencyTable(
  dynamodb: DynamoDBClient,
  label: string,
): Promise<{ tableName: string; destroy(): Promise<void> }> {
  const tableName = `${uniqueName(label)}-idempotency`;
  await dynamodb.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    }),
  );
  await waitUntilTableExists({ client: dynamodb, maxWaitTime: 60 }, { TableName: tableName });
  return {
    tableName,
    destroy: async () => {
      await dynamodb.send(new DeleteTableCommand({ TableName: tableName }));
    },
  };
}
