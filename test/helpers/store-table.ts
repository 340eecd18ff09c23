/**
 * The task store against the emulator, for the store's integration tests: one table per test
 * file, a store on a clock the test moves, and the ways a test makes a task.
 *
 * Call `useStoreTable()` at the top of a test file. Its beforeAll provisions the table and sets
 * `store` and `tableName`, which importers read as live bindings; every test starts at `T0`.
 * Each test file gets its own instance of this module, so files never share a table.
 */
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { TaskRecord } from '../../src/core/record.js';
import { provision } from '../../src/local/provision.js';
import { silentLogger } from '../../src/observability/logger.js';
import { executorSettings } from '../../src/settings/executor.js';
import { RecordWrites } from '../../src/store/record-writes.js';
import { type Lease, type NewTask, TaskStore } from '../../src/store/task-store.js';
import { testClients, uniqueName } from './aws.js';
import { markSentAsOlderVersionsDid } from './legacy-writes.js';

export const T0 = Date.UTC(2030, 0, 1);
export const LEASE_MS = 60_000;
export const SHARDS = 8;
export const RETENTION_SECONDS = 30 * 24 * 60 * 60;

/** The store's clock: a test moves `clock.now`; each test starts at `T0`. */
export const clock = { now: T0 };

export const { sqs, dynamodb } = testClients();
/** Names of every DynamoDB command sent, recorded by a middleware on the shared client. */
export const sentCommands: string[] = [];
dynamodb.middlewareStack.add(
  (next, context) => async (args) => {
    sentCommands.push(context.commandName ?? 'unknown');
    return next(args);
  },
  { step: 'initialize', name: 'recordCommandNames' },
);

/** The file's table, set by `useStoreTable`'s beforeAll. */
export let tableName: string;
/** A store over the file's table on `clock`, set by `useStoreTable`'s beforeAll. */
export let store: TaskStore;

/** Provisions the file's table (named from `prefix`) and resets the clock before each test. */
export function useStoreTable(prefix: string): void {
  beforeAll(async () => {
    const executor = await provision(executorSettings({ name: uniqueName(prefix) }), {
      sqs,
      dynamodb,
    });
    tableName = executor.tableName;
    store = storeFor(tableName);
  });

  afterAll(() => {
    sqs.destroy();
    dynamodb.destroy();
  });

  beforeEach(() => {
    clock.now = T0;
  });
}

export function storeFor(table: string): TaskStore {
  return new TaskStore({
    tableName: table,
    dynamodb,
    logger: silentLogger,
    clock: () => clock.now,
  });
}

/**
 * A client whose requests reach the emulator one at a time: DynamoDB's per-item write
 * serialization, which moto_server's threaded request handling does not provide.
 */
export function serializedClient(): DynamoDBClient {
  const client = testClients().dynamodb;
  let queue: Promise<unknown> = Promise.resolve();
  client.middlewareStack.add(
    (next) => (args) => {
      const turn = queue.then(() => next(args));
      queue = turn.catch(() => undefined);
      return turn;
    },
    { step: 'build', name: 'serializeRequests' },
  );
  return client;
}

export function newTask(id: string, overrides: Partial<NewTask> = {}): NewTask {
  return {
    id,
    type: 'report.build',
    payloadJson: '{"month":"2030-01"}',
    payloadHash: 'hash-1',
    maxAttempts: 3,
    timeoutMs: 30_000,
    messageGroupId: id,
    ...overrides,
  };
}

/** The item exactly as stored, read with the low-level client. */
export async function rawItem(id: string, table = tableName): Promise<Record<string, unknown>> {
  const out = await dynamodb.send(
    new GetItemCommand({ TableName: table, Key: { pk: { S: id } }, ConsistentRead: true }),
  );
  if (out.Item === undefined) throw new Error(`no item ${id}`);
  return unmarshall(out.Item);
}

export async function current(id: string): Promise<TaskRecord> {
  const record = await store.get(id);
  if (record === undefined) throw new Error(`no task ${id}`);
  return record;
}

export async function createQueued(
  id: string,
  overrides: Partial<NewTask> = {},
): Promise<TaskRecord> {
  const { record } = await store.feature(RecordWrites).create(newTask(id, overrides));
  return markSentAsOlderVersionsDid(dynamodb, tableName, record, clock.now);
}

export async function createRunning(
  id: string,
  workerId = 'worker-a',
  overrides: Partial<NewTask> = {},
): Promise<{ record: TaskRecord; lease: Lease }> {
  return store.claim(await createQueued(id, overrides), { workerId, leaseMs: LEASE_MS });
}
