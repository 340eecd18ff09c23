/** The executor's CloudFormation outputs, which `locationFromStackOutputs()` reads back. */
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { LaneLocation, LaneLocations } from '../settings/lanes.js';
import { StackOutputSuffix } from '../settings/stack-outputs.js';

/** The resources whose names and ARNs the outputs publish. */
export interface OutputSources {
  readonly tableName: string;
  readonly workQueue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly scheduleDeadLetterQueue: IQueue;
  readonly scheduleGroupName: string;
  readonly delayedScheduleGroupName: string;
  readonly schedulerRoleArn: string;
  readonly delayedSchedulerRoleArn: string;
  readonly worker: IFunction;
  /** The customer-managed key, published only when there is one. */
  readonly encryptionKeyArn?: string | undefined;
  /** The integrity tag's key, when integrity is on. */
  readonly integrityKeyArn?: string | undefined;
  /** The claim-check bucket, when there is one. */
  readonly payloadBucketName?: string | undefined;
  /** Shards per status of the status index, which producers must share. */
  readonly statusShards: number;
  /** Every lane's queues, when the executor has lanes. */
  readonly lanes?: LaneLocations | undefined;
}

/** The parts of a TaskExecutor the outputs publish (described here, so no import cycle). */
export interface OutputParts {
  readonly table: { readonly tableName: string };
  readonly workQueue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly scheduleDeadLetterQueue: IQueue;
  readonly scheduling: {
    readonly schedulerRole: { readonly roleArn: string };
    readonly delayedSchedulerRole: { readonly roleArn: string };
  };
  readonly worker: IFunction;
  readonly encryptionKey: { readonly keyArn: string } | undefined;
  readonly integrityKey: { readonly keyArn: string } | undefined;
  readonly payloadBucket: { readonly bucketName: string } | undefined;
  readonly settings: {
    readonly scheduler: { readonly groupName: string; readonly delayedGroupName: string };
  };
}

/** The output sources of an executor's parts, its shard count and its lanes (if any). */
export function outputSourcesOf(
  parts: OutputParts,
  statusShards: number,
  lanes: LaneLocations | undefined,
): OutputSources {
  return {
    tableName: parts.table.tableName,
    workQueue: parts.workQueue,
    deadLetterQueue: parts.deadLetterQueue,
    scheduleDeadLetterQueue: parts.scheduleDeadLetterQueue,
    scheduleGroupName: parts.settings.scheduler.groupName,
    delayedScheduleGroupName: parts.settings.scheduler.delayedGroupName,
    schedulerRoleArn: parts.scheduling.schedulerRole.roleArn,
    delayedSchedulerRoleArn: parts.scheduling.delayedSchedulerRole.roleArn,
    worker: parts.worker,
    encryptionKeyArn: parts.encryptionKey?.keyArn,
    integrityKeyArn: parts.integrityKey?.keyArn,
    payloadBucketName: parts.payloadBucket?.bucketName,
    statusShards,
    lanes,
  };
}

/** Adds the outputs to `scope`, keyed `<id><suffix>` (the id's letters and digits). */
export function addExecutorOutputs(scope: Construct, id: string, sources: OutputSources): void {
  const prefix = id.replace(/[^A-Za-z0-9]/g, '');
  const outputs: [string, string, string][] = [
    [StackOutputSuffix.TABLE_NAME, sources.tableName, 'The task table'],
    [StackOutputSuffix.QUEUE_URL, sources.workQueue.queueUrl, 'The FIFO work queue'],
    [
      StackOutputSuffix.QUEUE_ARN,
      sources.workQueue.queueArn,
      'The work queue, target of schedules',
    ],
    [StackOutputSuffix.DEAD_LETTER_QUEUE_URL, sources.deadLetterQueue.queueUrl, 'The FIFO DLQ'],
    // The literal name, not a reference: moto's CloudFormation skips Scheduler resources.
    [
      StackOutputSuffix.SCHEDULE_GROUP_NAME,
      sources.scheduleGroupName,
      'The schedule group of recurring schedules',
    ],
    [
      StackOutputSuffix.DELAYED_SCHEDULE_GROUP_NAME,
      sources.delayedScheduleGroupName,
      'The schedule group of delayed tasks',
    ],
    [
      StackOutputSuffix.SCHEDULER_ROLE_ARN,
      sources.schedulerRoleArn,
      'Execution role of recurring schedules',
    ],
    [
      StackOutputSuffix.DELAYED_SCHEDULER_ROLE_ARN,
      sources.delayedSchedulerRoleArn,
      'Execution role of delayed tasks’ schedules',
    ],
    [
      StackOutputSuffix.SCHEDULE_DLQ_ARN,
      sources.scheduleDeadLetterQueue.queueArn,
      'Where schedules put firings they could not deliver',
    ],
    [StackOutputSuffix.WORKER_FUNCTION_NAME, sources.worker.functionName, 'The worker function'],
    [
      StackOutputSuffix.STATUS_SHARDS,
      String(sources.statusShards),
      'Shards per status of the status index (TaskClient statusShards)',
    ],
  ];
  if (sources.encryptionKeyArn !== undefined) {
    outputs.push([
      StackOutputSuffix.KMS_KEY_ARN,
      sources.encryptionKeyArn,
      'The key of the table, queues, schedules, logs and functions',
    ]);
  }
  if (sources.integrityKeyArn !== undefined) {
    outputs.push([
      StackOutputSuffix.INTEGRITY_KEY_ID,
      sources.integrityKeyArn,
      'The HMAC key of the integrity tag',
    ]);
  }
  if (sources.payloadBucketName !== undefined) {
    outputs.push([
      StackOutputSuffix.PAYLOAD_BUCKET,
      sources.payloadBucketName,
      'The bucket of large payloads and results',
    ]);
  }
  if (sources.lanes !== undefined) {
    const map = (field: keyof LaneLocation) =>
      Stack.of(scope).toJsonString(
        Object.fromEntries(Object.entries(sources.lanes ?? {}).map(([l, q]) => [l, q[field]])),
      );
    outputs.push(
      [
        StackOutputSuffix.LANE_QUEUE_URLS,
        map('queueUrl'),
        'Each lane’s work queue, by lane (JSON)',
      ],
      [
        StackOutputSuffix.LANE_QUEUE_ARNS,
        map('queueArn'),
        'Each lane’s work queue ARN, by lane (JSON)',
      ],
      [
        StackOutputSuffix.LANE_DLQ_URLS,
        map('deadLetterQueueUrl'),
        'Each lane’s DLQ, by lane (JSON)',
      ],
    );
  }
  for (const [suffix, value, description] of outputs) {
    new CfnOutput(scope, suffix, { key: `${prefix}${suffix}`, value, description });
  }
}
