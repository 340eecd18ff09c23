import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { TaskClientOptions } from '../../src/client/options.js';
import { TaskClient } from '../../src/client/task-client.js';
import { provision } from '../../src/local/provision.js';
import { silentLogger } from '../../src/observability/logger.js';
import { noopMetrics } from '../../src/observability/metrics.js';
import { executorSettings } from '../../src/settings/executor.js';
import { createSweeper } from '../../src/sweeper/create-sweeper.js';
import type { SweepReport } from '../../src/sweeper/sweeper.js';
import type { TaskDefinition } from '../../src/tasks/task-definition.js';
import { createWorker } from '../../src/worker/create-worker.js';
import { toSqsRecord } from '../../src/worker/sqs-poller.js';
import { REGION, testClients, uniqueName } from './aws.js';

/** An executor in the emulator with a second lane, `bulk`, and what a test drives it with. */
export interface LaneExecutor {
  readonly clients: ReturnType<typeof testClients>;
  readonly location: Awaited<ReturnType<typeof provision>>;
  client(options?: Partial<TaskClientOptions>): TaskClient;
  sweeper(options?: { pendingAgeMs?: number }): { run(): Promise<SweepReport> };
  /**
   * Plays a lane's event source mapping once: one receive, the worker's batch, and the
   * deletion of what it did not report failed.
   */
  runLane(lane: 'default' | 'bulk', tasks: readonly TaskDefinition[]): Promise<void>;
}

/** Provisions an executor with the lanes `default` and `bulk`. */
export async function setupLaneExecutor(): Promise<LaneExecutor> {
  const clients = testClients();
  const settings = executorSettings({
    name: uniqueName('plk'),
    workerTimeoutSeconds: 5,
    lanes: { bulk: { maxConcurrency: 2, batchSize: 10 } },
  });
  const location = await provision(settings, clients);
  const client = (options: Partial<TaskClientOptions> = {}) =>
    new TaskClient({ ...location, ...clients, logger: silentLogger, ...options });
  const sweeper = (options: { pendingAgeMs?: number } = {}) =>
    createSweeper({
      ...location,
      ...clients,
      logger: silentLogger,
      metrics: noopMetrics,
      ...options,
    });
  const runLane = async (lane: 'default' | 'bulk', tasks: readonly TaskDefinition[]) => {
    const worker = createWorker(tasks, {
      ...location,
      ...clients,
      logger: silentLogger,
      metrics: noopMetrics,
    });
    const where = lane === 'default' ? location : location.lanes?.bulk;
    if (where === undefined) throw new Error(`no lane ${lane}`);
    const out = await clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: where.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const records = (out.Messages ?? []).map((m) => toSqsRecord(m, where.queueArn ?? '', REGION));
    const response = await worker.processBatch(records);
    const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
    for (const r of records.filter((r) => !failed.has(r.messageId))) {
      await clients.sqs.send(
        new DeleteMessageCommand({ QueueUrl: where.queueUrl, ReceiptHandle: r.receiptHandle }),
      );
    }
  };
  return { clients, location, client, sweeper, runLane };
}
