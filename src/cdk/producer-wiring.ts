/**
 * What a producer needs from an executor, in one place: the environment a `TaskClient`
 * reads (`EnvVars`), for the features this executor deploys, so that `new TaskClient()` in
 * the producer can enqueue immediate and delayed tasks, route them to their lanes, tag them
 * and claim-check their payloads, exactly as the executor's own functions do.
 */
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { type LaneLocations, laneEnvironment } from '../settings/lanes.js';
import { EnvVars } from '../settings/location.js';
import type { Retention } from '../settings/retention.js';

/**
 * A producer `TaskExecutor.connectProducer` can wire: anything with an identity to grant to
 * and environment variables to set, such as a Lambda `Function` or `NodejsFunction`.
 */
export interface ProducerTarget extends IGrantable {
  /** Sets one environment variable (a Lambda function's `addEnvironment`). */
  addEnvironment(key: string, value: string): unknown;
}

/** Options of `TaskExecutor.connectProducer`. */
export interface ConnectProducerOptions {
  /**
   * Also let the producer read its tasks back (`get`, `wait`, `list`, `counts`, `watch`):
   * `grantRead` besides `grantEnqueue`. @default false
   */
  readonly read?: boolean;
}

/** The executor's resources a producer's environment names. */
export interface ProducerSources {
  readonly tableName: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly scheduleGroupName: string;
  readonly delayedScheduleGroupName: string;
  readonly schedulerRoleArn: string;
  readonly delayedSchedulerRoleArn: string;
  readonly scheduleDeadLetterArn: string;
  readonly retentionMs: Retention;
  readonly statusShards: number;
  /** The customer-managed key, which schedules are encrypted with. */
  readonly encryptionKeyArn?: string | undefined;
  /** The integrity tag's key, with `integrity`. */
  readonly integrityKeyArn?: string | undefined;
  /** The claim-check bucket, with `payloadBucket`. */
  readonly payloadBucketName?: string | undefined;
  /** Every lane's work queue, with `lanes`. */
  readonly lanes?: LaneLocations | undefined;
}

/**
 * The environment of a producer: every `TASKLANE_*` variable a `TaskClient` reads to enqueue
 * on this executor with the features it deploys, and none it does not (no dead-letter queue:
 * redrive is an operator's; no event bus: only workers publish events).
 */
export function producerEnvironment(sources: ProducerSources): Record<string, string> {
  return {
    [EnvVars.TABLE_NAME]: sources.tableName,
    [EnvVars.QUEUE_URL]: sources.queueUrl,
    // Known up front, so the producer never looks it up (GetQueueAttributes).
    [EnvVars.QUEUE_ARN]: sources.queueArn,
    // Delayed tasks: the client resolves all of these before its first CreateSchedule.
    [EnvVars.SCHEDULE_GROUP]: sources.scheduleGroupName,
    [EnvVars.DELAYED_SCHEDULE_GROUP]: sources.delayedScheduleGroupName,
    [EnvVars.SCHEDULER_ROLE_ARN]: sources.schedulerRoleArn,
    [EnvVars.DELAYED_SCHEDULER_ROLE_ARN]: sources.delayedSchedulerRoleArn,
    [EnvVars.SCHEDULE_DLQ_ARN]: sources.scheduleDeadLetterArn,
    // Shared with the worker and the sweeper: the record's expiry and the index's shards.
    [EnvVars.RETENTION_MS]: String(sources.retentionMs),
    [EnvVars.STATUS_SHARDS]: String(sources.statusShards),
    ...(sources.encryptionKeyArn !== undefined && {
      [EnvVars.KMS_KEY_ARN]: sources.encryptionKeyArn,
    }),
    ...(sources.integrityKeyArn !== undefined && {
      [EnvVars.INTEGRITY_KEY_ID]: sources.integrityKeyArn,
    }),
    ...(sources.payloadBucketName !== undefined && {
      [EnvVars.PAYLOAD_BUCKET]: sources.payloadBucketName,
    }),
    // Queue URLs and ARNs only: a producer reads no DLQ, and Lambda's environment is 4 KB.
    ...(sources.lanes !== undefined &&
      laneEnvironment(
        Object.fromEntries(
          Object.entries(sources.lanes).map(([lane, l]) => [
            lane,
            { queueUrl: l.queueUrl, queueArn: l.queueArn },
          ]),
        ),
      )),
  };
}
