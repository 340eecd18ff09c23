import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig } from '../aws-clients.js';
import { type ExecutorLocation, resolveLocation } from '../config.js';
import { defaultLogger, type TaskLogger } from '../observability/logger.js';
import { Dispatcher } from '../outbox/dispatcher.js';
import { TaskStore } from '../store/task-store.js';
import { type SweepOptions, type SweepReport, sweep } from './sweeper.js';

/** Options of {@link createSweeper}. */
export interface SweeperOptions
  extends ExecutorLocation,
    Partial<Pick<SweepOptions, 'budgetMs' | 'pendingAgeMs' | 'pageSize' | 'clock'>> {
  readonly dynamodb?: DynamoDBClient;
  readonly sqs?: SQSClient;
  readonly logger?: TaskLogger;
  /** Must match the producers' and workers' setting. @default 8 */
  readonly statusShards?: number;
}

/**
 * Builds the sweeper from explicit options or the environment (TASKLANE_TABLE_NAME,
 * TASKLANE_QUEUE_URL). `run()` performs one sweep; the CDK stack schedules it every minute.
 */
export function createSweeper(options: SweeperOptions = {}): { run(): Promise<SweepReport> } {
  const location = resolveLocation(options);
  const logger = options.logger ?? defaultLogger();
  const sqs = options.sqs ?? new SQSClient(awsClientConfig());
  const store = new TaskStore({
    tableName: location.tableName,
    dynamodb: options.dynamodb ?? new DynamoDBClient(awsClientConfig()),
    logger,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.statusShards === undefined ? {} : { statusShards: options.statusShards }),
  });
  const dispatcher = new Dispatcher(sqs, location.queueUrl, store, logger);
  return {
    run: () =>
      sweep({
        store,
        dispatcher,
        logger,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...(options.budgetMs === undefined ? {} : { budgetMs: options.budgetMs }),
        ...(options.pendingAgeMs === undefined ? {} : { pendingAgeMs: options.pendingAgeMs }),
        ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
      }),
  };
}
