import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig, sqsClientConfig } from '../aws/clients.js';
import { ConfigurationError } from '../core/errors.js';
import { type IntegrityOptions, resolveIntegrity } from '../integrity/tag.js';
import { defaultLogger, type TaskLogger } from '../observability/logger.js';
import { powertoolsMetrics, type TaskMetrics, TaskOutcome } from '../observability/metrics.js';
import { createDelayedTasks } from '../scheduler/delayed.js';
import { Dispatcher } from '../scheduler/dispatcher.js';
import { Waker } from '../scheduler/waker.js';
import {
  type ExecutorLocation,
  resolveLaneQueues,
  resolveLocation,
  resolveSchedulerLocation,
} from '../settings/location.js';
import { type Retention, resolveRetention } from '../settings/retention.js';
import { DynamoDBClient } from '../store/table.js';
import { TaskStore } from '../store/task-store.js';
import { overdueBefore } from './overdue.js';
import { type SweepOptions, type SweepReport, sweep } from './sweeper.js';

/** Options of {@link createSweeper}. */
export interface SweeperOptions
  extends ExecutorLocation,
    Partial<
      Pick<
        SweepOptions,
        | 'budgetMs'
        | 'pendingAgeMs'
        | 'pageSize'
        | 'clock'
        | 'queuedOverdueMs'
        | 'releaseGraceMs'
        | 'suspendedGraceMs'
        | 'scanRunning'
      >
    > {
  /**
   * The default lane's DLQ, read by the dead-letter pass for RUNNING tasks whose message
   * reached it (each lane's own comes with its lane). @default `TASKLANE_DLQ_URL`; without
   * any DLQ the pass is skipped (docs/adr/0052-running-leaves-the-status-index.md)
   */
  readonly deadLetterQueueUrl?: string | undefined;
  /** Messages the dead-letter pass reads per DLQ per sweep, from 1 to 1000. @default 100 */
  readonly deadLetterLimit?: number;
  readonly dynamodb?: DynamoDBClient;
  readonly sqs?: SQSClient;
  /** Used to check overdue delayed tasks' schedules. @default a client from the environment */
  readonly scheduler?: SchedulerClient;
  readonly logger?: TaskLogger;
  /**
   * Counts the tasks a sweep declares DEAD (`TasksDead`, as the worker does), so the DEAD
   * alarm sees them too. @default {@link powertoolsMetrics}
   */
  readonly metrics?: TaskMetrics;
  /** Must match the producers' and workers' setting. @default 8 */
  readonly statusShards?: number;
  /**
   * How long finished tasks are kept (the sweeper itself only writes DEAD, which never
   * expires). @default `TASKLANE_RETENTION_MS`, else 30 days
   */
  readonly retention?: Retention;
  /**
   * Verify each task's integrity tag before sending it (kms:VerifyMac).
   * @default on when `TASKLANE_INTEGRITY_KEY_ID` is set, else off
   */
  readonly integrity?: IntegrityOptions | undefined;
}

/**
 * Builds the sweeper from explicit options or the environment (TASKLANE_TABLE_NAME,
 * TASKLANE_QUEUE_URL). `run()` performs one sweep; the CDK stack schedules it every minute.
 */
export function createSweeper(options: SweeperOptions = {}): { run(): Promise<SweepReport> } {
  const location = resolveLocation(options);
  overdueBefore(0, options.queuedOverdueMs); // Validates the threshold up front.
  const logger = options.logger ?? defaultLogger();
  const metrics = options.metrics ?? powertoolsMetrics();
  const sqs = options.sqs ?? new SQSClient(sqsClientConfig());
  const dynamodb = options.dynamodb ?? new DynamoDBClient(awsClientConfig());
  const integrity = resolveIntegrity(options.integrity, dynamodb);
  const store = new TaskStore({
    tableName: location.tableName,
    dynamodb,
    logger,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.statusShards === undefined ? {} : { statusShards: options.statusShards }),
    retention: resolveRetention(options.retention),
  });
  // Every lane's queue: the sweeper re-sends each task to its own lane (docs/lanes.md).
  const lanes = resolveLaneQueues(options, location.queueUrl);
  const dispatcher = new Dispatcher(sqs, lanes, logger);
  // Every lane's DLQ that is configured, read for RUNNING tasks whose message reached it.
  const dlqs = [...lanes.entries()].flatMap(([lane, { deadLetterQueueUrl: url }]) =>
    url === undefined || url === '' ? [] : [{ lane, url }],
  );
  // Suspended tasks whose wake was lost are woken again (docs/adr/0048-durable-sleep-signals-pause.md).
  const waker = new Waker(sqs, dispatcher, lanes, logger);
  // Overdue delayed tasks are checked only where scheduling is configured.
  const delayed = schedulingConfigured(options)
    ? createDelayedTasks({
        location: options,
        store,
        sqs,
        queueUrl: location.queueUrl,
        lanes,
        logger,
        clock: options.clock ?? Date.now,
        scheduler: options.scheduler,
        dispatcher,
      })
    : undefined;
  const once = () =>
    sweep({
      store,
      dispatcher,
      logger,
      integrity,
      waker,
      lanes: lanes.names(),
      deadLetters: {
        sqs,
        queues: dlqs,
        ...(options.deadLetterLimit === undefined ? {} : { limit: options.deadLetterLimit }),
      },
      ...(options.scanRunning === undefined ? {} : { scanRunning: options.scanRunning }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.budgetMs === undefined ? {} : { budgetMs: options.budgetMs }),
      ...(options.pendingAgeMs === undefined ? {} : { pendingAgeMs: options.pendingAgeMs }),
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
      ...(options.queuedOverdueMs === undefined
        ? {}
        : { queuedOverdueMs: options.queuedOverdueMs }),
      ...(options.releaseGraceMs === undefined ? {} : { releaseGraceMs: options.releaseGraceMs }),
      ...(options.suspendedGraceMs === undefined
        ? {}
        : { suspendedGraceMs: options.suspendedGraceMs }),
      ...(delayed === undefined
        ? {}
        : { ensureScheduled: (record) => delayed.ensureScheduled(record) }),
    });
  return {
    run: async () => {
      const report = await once();
      if (report.killed > 0) metrics.count(TaskOutcome.DEAD, report.killed);
      if (report.integrityFailed > 0) {
        metrics.count(TaskOutcome.INTEGRITY_FAILED, report.integrityFailed);
      }
      metrics.flush();
      return report;
    },
  };
}

function schedulingConfigured(location: ExecutorLocation): boolean {
  try {
    resolveSchedulerLocation(location);
    return true;
  } catch (err) {
    if (err instanceof ConfigurationError) return false;
    throw err;
  }
}
