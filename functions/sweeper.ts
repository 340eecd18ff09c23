/**
 * The sweeper Lambda, started every minute by an EventBridge Scheduler schedule.
 *
 * A stub for now: it logs that it ran and returns. The sweeper issue fills it in with a
 * call into src/ that finds RUNNING tasks whose lease expired and PENDING tasks whose message
 * was never sent (a GSI query on the status index, never a Scan), and requeues or kills each.
 * The TaskExecutor construct already gives it the table and queue through the environment,
 * one concurrent execution, and a dead-letter queue for failed runs.
 */
import { EnvVars } from '../src/config.js';
import { defaultLogger } from '../src/observability/logger.js';

const logger = defaultLogger();

/** What one sweep did. */
export interface SweepSummary {
  readonly requeued: number;
  readonly killed: number;
}

/** Invoked by the schedule; for now it only records that it ran. */
export async function handler(): Promise<SweepSummary> {
  logger.info('sweeper ran (stub: nothing swept yet)', {
    tableName: process.env[EnvVars.TABLE_NAME],
    queueUrl: process.env[EnvVars.QUEUE_URL],
  });
  return { requeued: 0, killed: 0 };
}
