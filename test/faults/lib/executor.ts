/**
 * A fault-suite executor: the real queues and table in the emulator, with a short visibility
 * timeout so that a dead worker's messages come back within seconds, plus a sweeper loop and
 * a way to wait until the system has quiesced.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DynamoDBDocumentClient,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { awsClientConfig } from '../../../src/aws-clients.js';
import { isTerminal } from '../../../src/constants.js';
import { type ProvisionedScheduler, provision } from '../../../src/local/provision.js';
import { silentLogger, type TaskLogger } from '../../../src/observability/logger.js';
import { noopMetrics } from '../../../src/observability/metrics.js';
import { executorSettings } from '../../../src/resources.js';
import { fromItem, type TaskRecord } from '../../../src/store/record.js';
import { TaskStore } from '../../../src/store/task-store.js';
import { createSweeper } from '../../../src/sweeper/create-sweeper.js';
import type { SweepReport } from '../../../src/sweeper/sweeper.js';
import { sleep } from './random.js';

export const REGION = 'us-east-1';

/** SDK clients configured as Tasklane configures its own (standard retries, 5 attempts). */
export interface AwsClients {
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
}

export function newClients(): AwsClients {
  return {
    sqs: new SQSClient({ ...awsClientConfig(), region: REGION }),
    dynamodb: new DynamoDBClient({ ...awsClientConfig(), region: REGION }),
  };
}

/** The provisioned resources of one scenario. */
export interface FaultExecutor {
  readonly name: string;
  readonly tableName: string;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  readonly queueArn: string;
  readonly visibilityTimeoutSeconds: number;
  /** Fault-free clients for observing and for the parts a scenario does not disturb. */
  readonly clients: AwsClients;
  /** A fault-free store for reading records. */
  readonly store: TaskStore;
  /** The schedule group and its settings, when provisioned with `scheduling`. */
  readonly scheduling?: ProvisionedScheduler & { readonly client: SchedulerClient };
}

export async function provisionExecutor(
  label: string,
  props: { workerTimeoutSeconds: number; maxAttempts: number; scheduling?: boolean },
): Promise<FaultExecutor> {
  const clients = newClients();
  const scheduler = props.scheduling
    ? new SchedulerClient({ ...awsClientConfig(), region: REGION })
    : undefined;
  const name = `faults-${label}-${randomBytes(3).toString('hex')}`;
  const settings = executorSettings({
    name,
    workerTimeoutSeconds: props.workerTimeoutSeconds,
    maxAttempts: props.maxAttempts,
    maxReceiveCount: Math.max(50, props.maxAttempts * 10),
  });
  const location = await provision(settings, { ...clients, ...(scheduler ? { scheduler } : {}) });
  const attrs = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: location.queueUrl, AttributeNames: ['QueueArn'] }),
  );
  const { scheduler: scheduling, ...rest } = location;
  return {
    name,
    ...rest,
    ...(scheduling === undefined || scheduler === undefined
      ? {}
      : { scheduling: { ...scheduling, client: scheduler } }),
    queueArn: attrs.Attributes?.QueueArn ?? '',
    visibilityTimeoutSeconds: settings.visibilityTimeoutSeconds,
    clients,
    store: new TaskStore({
      tableName: location.tableName,
      dynamodb: clients.dynamodb,
      logger: silentLogger,
    }),
  };
}

/** A sweeper run in a loop, as the scheduled Lambda would run it (but every few hundred ms). */
export interface SweeperLoop {
  readonly stats: {
    runs: number;
    errors: number;
    requeued: number;
    killed: number;
    sent: number;
    /** Overdue QUEUED tasks sent again under a new generation (message past retention). */
    resent: number;
  };
  /** Runs one sweep now (between the loop's own runs). */
  runOnce(): Promise<SweepReport | undefined>;
  stop(): Promise<void>;
}

export function startSweeperLoop(
  executor: FaultExecutor,
  options: {
    intervalMs: number;
    pendingAgeMs: number;
    clients?: AwsClients;
    logger?: TaskLogger;
    clock?: () => number;
    /** A QUEUED task this long overdue is sent again (the sweeper's default is 6 h). */
    queuedOverdueMs?: number;
  },
): SweeperLoop {
  const clients = options.clients ?? executor.clients;
  const sweeper = createSweeper({
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    ...clients,
    ...(executor.scheduling === undefined
      ? {}
      : {
          queueArn: executor.queueArn,
          scheduleGroup: executor.scheduling.scheduleGroup,
          schedulerRoleArn: executor.scheduling.schedulerRoleArn,
          scheduleDeadLetterArn: executor.scheduling.scheduleDeadLetterArn,
          scheduler: executor.scheduling.client,
        }),
    logger: options.logger ?? silentLogger,
    metrics: noopMetrics,
    pendingAgeMs: options.pendingAgeMs,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.queuedOverdueMs === undefined ? {} : { queuedOverdueMs: options.queuedOverdueMs }),
  });
  const stats = { runs: 0, errors: 0, requeued: 0, killed: 0, sent: 0, resent: 0 };
  let chain: Promise<unknown> = Promise.resolve();
  const runOnce = (): Promise<SweepReport | undefined> => {
    const run = chain.then(async () => {
      try {
        const report = await sweeper.run();
        stats.runs += 1;
        stats.requeued += report.requeued;
        stats.killed += report.killed;
        stats.sent += report.sent;
        stats.resent += (report as { resent?: number }).resent ?? 0;
        return report;
      } catch {
        // A throttled or failed sweep is retried by the next run, as the schedule would.
        stats.errors += 1;
        return undefined;
      }
    });
    chain = run;
    return run;
  };
  const controller = new AbortController();
  const loop = (async () => {
    while (!controller.signal.aborted) {
      await runOnce();
      await sleep(options.intervalMs, controller.signal);
    }
  })();
  return {
    stats,
    runOnce,
    stop: async () => {
      controller.abort();
      await loop;
    },
  };
}

/** Reads the records of `ids` with BatchGetItem (consistent), `fields` only if given. */
export async function readRecords(
  executor: FaultExecutor,
  ids: readonly string[],
  fields?: readonly string[],
): Promise<Map<string, TaskRecord>> {
  const doc = DynamoDBDocumentClient.from(executor.clients.dynamodb);
  const records = new Map<string, TaskRecord>();
  const projection =
    fields === undefined
      ? {}
      : {
          ProjectionExpression: fields.map((_, n) => `#f${n}`).join(', '),
          ExpressionAttributeNames: Object.fromEntries(fields.map((f, n) => [`#f${n}`, f])),
        };
  for (let i = 0; i < ids.length; i += 100) {
    let keys: Record<string, unknown>[] | undefined = ids
      .slice(i, i + 100)
      .map((id) => ({ pk: id }));
    while (keys !== undefined && keys.length > 0) {
      const out: BatchGetCommandOutput = await doc.send(
        new BatchGetCommand({
          RequestItems: {
            [executor.tableName]: { Keys: keys, ConsistentRead: true, ...projection },
          },
        }),
      );
      for (const item of out.Responses?.[executor.tableName] ?? []) {
        const record = fromItem(item);
        records.set(record.id, record);
      }
      keys = out.UnprocessedKeys?.[executor.tableName]?.Keys;
    }
  }
  return records;
}

/** Ids among `ids` whose task is not terminal yet; a missing record counts as open. */
export async function openAmong(
  executor: FaultExecutor,
  ids: readonly string[],
): Promise<string[]> {
  const records = await readRecords(executor, ids, ['pk', 'status']);
  return ids.filter((id) => {
    const record = records.get(id);
    return record === undefined || !isTerminal(record.status);
  });
}

/**
 * Waits until every task in `ids` is terminal (workers and sweeper keep running meanwhile),
 * or until `timeoutMs`. Whatever is still open then counts as lost. Only tasks still open
 * are read again: a terminal task stays terminal (no scenario redrives).
 */
export async function quiesce(
  executor: FaultExecutor,
  ids: readonly string[],
  timeoutMs: number,
): Promise<{ quiescent: boolean; open: number; waitedMs: number }> {
  const started = Date.now();
  let open = [...ids];
  for (;;) {
    open = await openAmong(executor, open);
    const waitedMs = Date.now() - started;
    if (open.length === 0) return { quiescent: true, open: 0, waitedMs };
    if (waitedMs > timeoutMs) return { quiescent: false, open: open.length, waitedMs };
    await sleep(1000);
  }
}

/** Every task record of the table (a Scan: test tooling, not the product). */
export async function readAllRecords(executor: FaultExecutor): Promise<Map<string, TaskRecord>> {
  const doc = DynamoDBDocumentClient.from(executor.clients.dynamodb);
  const records = new Map<string, TaskRecord>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({ TableName: executor.tableName, ExclusiveStartKey: startKey }),
    );
    for (const item of page.Items ?? []) {
      const record = fromItem(item);
      records.set(record.id, record);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return records;
}
