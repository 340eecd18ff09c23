/**
 * Reading an executor's location from the TaskExecutor construct's stack outputs
 * (docs/deploying.md): the output keys' suffixes and the parser.
 */

import { ConfigurationError } from '../core/errors.js';
import { delayedScheduleGroupName } from '../scheduler/names.js';
import { lanesFromMaps, parseLaneMap } from './lanes.js';
import type { ExecutorLocation } from './location.js';

/**
 * Suffixes of the TaskExecutor construct's CloudFormation output keys. A key is the
 * construct id (letters and digits only) followed by one of these, e.g. `ExecutorWorkQueueUrl`.
 */
export const StackOutputSuffix = {
  TABLE_NAME: 'TableName',
  QUEUE_URL: 'WorkQueueUrl',
  QUEUE_ARN: 'WorkQueueArn',
  DEAD_LETTER_QUEUE_URL: 'DeadLetterQueueUrl',
  SCHEDULE_GROUP_NAME: 'ScheduleGroupName',
  /** Not `…ScheduleGroupName`: a key must end in one suffix only. */
  DELAYED_SCHEDULE_GROUP_NAME: 'DelayedScheduleGroup',
  /** Only with the construct's `encryptionKey`. */
  KMS_KEY_ARN: 'EncryptionKeyArn',
  SCHEDULER_ROLE_ARN: 'SchedulerRoleArn',
  /**
   * The delayed tasks' schedules' role. Not `…SchedulerRoleArn`: a key must end in one suffix
   * only. Absent from stacks made before the roles were split.
   */
  DELAYED_SCHEDULER_ROLE_ARN: 'DelayedDeliveryRoleArn',
  SCHEDULE_DLQ_ARN: 'ScheduleDeadLetterQueueArn',
  WORKER_FUNCTION_NAME: 'WorkerFunctionName',
  /** Only with `integrity: true`: the HMAC key of the integrity tag. */
  INTEGRITY_KEY_ID: 'IntegrityKeyId',
  /** Only with `payloadBucket`: the claim-check bucket's name. */
  PAYLOAD_BUCKET: 'PayloadBucketName',
  /** Shards per status of the status index; absent from stacks made before it was a prop. */
  STATUS_SHARDS: 'StatusShards',
  /** Only with lanes: JSON `{ "<lane>": "<work queue URL>" }`, every lane. */
  LANE_QUEUE_URLS: 'LaneQueueUrls',
  /** Only with lanes: JSON `{ "<lane>": "<work queue ARN>" }`. */
  LANE_QUEUE_ARNS: 'LaneQueueArns',
  /** Only with lanes: JSON `{ "<lane>": "<DLQ URL>" }`. */
  LANE_DLQ_URLS: 'LaneDeadLetterQueueUrls',
} as const;

/**
 * An executor's location and its other resources, as read from the stack outputs. It is an
 * {@link ExecutorLocation} with every field set, so it configures a `TaskClient` for
 * immediate, delayed and recurring tasks as it is (and `deadLetterQueueUrl` for redrive).
 */
export interface ExecutorOutputs extends ExecutorLocation {
  readonly tableName: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly deadLetterQueueUrl: string;
  readonly scheduleGroup: string;
  readonly delayedScheduleGroup: string;
  readonly schedulerRoleArn: string;
  /** The delayed tasks' role; the recurring one for a stack from before the split. */
  readonly delayedSchedulerRoleArn: string;
  readonly scheduleDeadLetterArn: string;
  readonly workerFunctionName: string;
  /**
   * Present when the executor has `integrity: true`: a TaskClient given these outputs then
   * tags the tasks it creates (docs/security.md).
   */
  readonly integrity?: { readonly keyId: string };
  /** The executor's `statusShards`, which the client must share with its worker. */
  readonly statusShards?: number;
}

/** One output as CloudFormation's DescribeStacks returns it. */
export interface StackOutput {
  readonly OutputKey?: string | undefined;
  readonly OutputValue?: string | undefined;
}

/**
 * Reads an executor's resources from its stack's outputs: DescribeStacks' `Outputs`, or a
 * key → value record (one stack of `cdk deploy --outputs-file`). The result configures a
 * `TaskClient` or worker: `new TaskClient(locationFromStackOutputs(outputs))`.
 *
 * @param constructId The construct's id when the stack holds more than one executor.
 * @throws ConfigurationError naming every output that is missing or ambiguous.
 */
export function locationFromStackOutputs(
  outputs: readonly StackOutput[] | Readonly<Record<string, string>>,
  constructId?: string,
): ExecutorOutputs {
  const values = new Map<string, string>(
    Array.isArray(outputs)
      ? (outputs as readonly StackOutput[]).flatMap((o) =>
          o.OutputKey === undefined || o.OutputValue === undefined
            ? []
            : [[o.OutputKey, o.OutputValue] as const],
        )
      : Object.entries(outputs as Record<string, string>),
  );
  const prefix = constructId?.replace(/[^A-Za-z0-9]/g, '');
  const problems: string[] = [];
  const read = (suffix: string, optional = false): string => {
    if (optional) {
      const keys = [...values.keys()].filter((key) =>
        prefix === undefined ? key.endsWith(suffix) : key === `${prefix}${suffix}`,
      );
      return keys.length === 1 ? (values.get(keys[0] ?? '') ?? '') : '';
    }
    if (prefix !== undefined) {
      const value = values.get(`${prefix}${suffix}`);
      if (value === undefined) problems.push(`no output ${prefix}${suffix}`);
      return value ?? '';
    }
    const keys = [...values.keys()].filter((key) => key.endsWith(suffix));
    if (keys.length !== 1) {
      problems.push(
        keys.length === 0
          ? `no output ending in ${suffix}`
          : `several outputs end in ${suffix} (${keys.join(', ')}); pass the construct id`,
      );
    }
    return values.get(keys[0] ?? '') ?? '';
  };
  const integrityKeys = [...values.keys()].filter((key) =>
    prefix === undefined
      ? key.endsWith(StackOutputSuffix.INTEGRITY_KEY_ID)
      : key === `${prefix}${StackOutputSuffix.INTEGRITY_KEY_ID}`,
  );
  if (integrityKeys.length > 1) {
    problems.push(
      `several outputs end in ${StackOutputSuffix.INTEGRITY_KEY_ID} (${integrityKeys.join(', ')}); pass the construct id`,
    );
  }
  const integrityKeyId = values.get(integrityKeys[0] ?? '');
  const result = {
    tableName: read(StackOutputSuffix.TABLE_NAME),
    queueUrl: read(StackOutputSuffix.QUEUE_URL),
    queueArn: read(StackOutputSuffix.QUEUE_ARN),
    deadLetterQueueUrl: read(StackOutputSuffix.DEAD_LETTER_QUEUE_URL),
    scheduleGroup: read(StackOutputSuffix.SCHEDULE_GROUP_NAME),
    schedulerRoleArn: read(StackOutputSuffix.SCHEDULER_ROLE_ARN),
    scheduleDeadLetterArn: read(StackOutputSuffix.SCHEDULE_DLQ_ARN),
    workerFunctionName: read(StackOutputSuffix.WORKER_FUNCTION_NAME),
    ...(integrityKeyId === undefined ? {} : { integrity: { keyId: integrityKeyId } }),
  };
  // Stacks from before the split have no delayed group output: derive its name. The key's
  // ARN is published only when the executor has one.
  const delayedGroup = read(StackOutputSuffix.DELAYED_SCHEDULE_GROUP_NAME, true);
  const delayedRole = read(StackOutputSuffix.DELAYED_SCHEDULER_ROLE_ARN, true);
  const kmsKeyArn = read(StackOutputSuffix.KMS_KEY_ARN, true);
  const payloadBucket = read(StackOutputSuffix.PAYLOAD_BUCKET, true);
  const statusShards = read(StackOutputSuffix.STATUS_SHARDS, true);
  if (statusShards !== '' && !/^[1-9][0-9]*$/.test(statusShards)) {
    problems.push(
      `output ${StackOutputSuffix.STATUS_SHARDS} is ${JSON.stringify(statusShards)}, expected a shard count`,
    );
  }
  const laneUrls = read(StackOutputSuffix.LANE_QUEUE_URLS, true);
  const lanes =
    laneUrls === ''
      ? undefined
      : lanesFromMaps(
          parseLaneMap(laneUrls, `the output ${StackOutputSuffix.LANE_QUEUE_URLS}`),
          optionalLaneMap(
            read(StackOutputSuffix.LANE_QUEUE_ARNS, true),
            StackOutputSuffix.LANE_QUEUE_ARNS,
          ),
          optionalLaneMap(
            read(StackOutputSuffix.LANE_DLQ_URLS, true),
            StackOutputSuffix.LANE_DLQ_URLS,
          ),
        );
  if (problems.length > 0) {
    throw new ConfigurationError(
      `Cannot read the executor from the stack outputs: ${problems.join('; ')}.`,
    );
  }
  return {
    ...result,
    delayedScheduleGroup: delayedGroup || delayedScheduleGroupName(result.scheduleGroup),
    delayedSchedulerRoleArn: delayedRole || result.schedulerRoleArn,
    ...(kmsKeyArn === '' ? {} : { scheduleKmsKeyArn: kmsKeyArn }),
    ...(payloadBucket === '' ? {} : { payloadBucket }),
    ...(statusShards === '' ? {} : { statusShards: Number(statusShards) }),
    ...(lanes === undefined ? {} : { lanes }),
  };
}

function optionalLaneMap(json: string, suffix: string): Record<string, string> {
  return json === '' ? {} : parseLaneMap(json, `the output ${suffix}`);
}
