import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { STSClient } from '@aws-sdk/client-sts';
import type { IntegrityOptions } from '../integrity/tag.js';
import type { TaskLogger } from '../observability/logger.js';
import type { ExecutorLocation } from '../settings/location.js';
import type { Retention } from '../store/retention.js';

/** Options of {@link TaskClient}. */
export interface TaskClientOptions extends ExecutorLocation {
  /** The dead-letter queue, drained by `redrive`. Env: `TASKLANE_DLQ_URL`. */
  readonly deadLetterQueueUrl?: string | undefined;
  /** Injected DynamoDB client. @default a new client from the environment */
  readonly dynamodb?: DynamoDBClient | undefined;
  /**
   * Injected DynamoDB Streams client, for `watch()`. @default a new client, made on the first
   * watch, with the DynamoDB client's region, credentials and endpoint
   */
  readonly dynamodbStreams?: DynamoDBStreamsClient | undefined;
  /** Injected SQS client. @default a new client from the environment */
  readonly sqs?: SQSClient | undefined;
  /**
   * Largest accepted payload as UTF-8 JSON, in bytes.
   * @default 262144; 104857600 (100 MiB) with a `payloadBucket`
   */
  readonly maxPayloadBytes?: number | undefined;
  /**
   * With a `payloadBucket`, payloads larger than this (UTF-8 JSON bytes) are stored in S3
   * before the record is written, and the record holds the reference. 0 to 131072.
   * @default 65536
   */
  readonly payloadThresholdBytes?: number | undefined;
  /** Injected S3 client, for the payload bucket. @default a new client, made on first use */
  readonly s3?: S3Client | undefined;
  /** Must match the workers' setting. @default 8 */
  readonly statusShards?: number | undefined;
  /**
   * How long a SUCCEEDED or CANCELLED task is kept, and so how long its id stays reserved:
   * milliseconds after it finished, or `'forever'` (no TTL). DEAD tasks stay until purged.
   * Use the same value in producers, workers and the sweeper.
   * @default `TASKLANE_RETENTION_MS`, else 30 days
   */
  readonly retention?: Retention | undefined;
  readonly logger?: TaskLogger | undefined;
  /** @default Date.now */
  readonly clock?: (() => number) | undefined;
  /** Injected EventBridge Scheduler client. @default a new client from the environment */
  readonly scheduler?: SchedulerClient | undefined;
  /**
   * A `runAt` further out than this gets a one-time schedule; a nearer one is sent at once
   * and held back by the worker (a task with an ordering key holds its key meanwhile).
   * At most 3600000 (1 hour): the worker's hold-back must stay under SQS's 12-hour
   * visibility cap. @default 60000
   */
  readonly scheduleThresholdMs?: number | undefined;
  /**
   * Tag each new task with a KMS HMAC over its id, type, payload and maxAttempts, which the
   * worker and the sweeper verify (one kms:GenerateMac per created task; docs/security.md).
   * @default on when `TASKLANE_INTEGRITY_KEY_ID` is set, else off
   */
  readonly integrity?: IntegrityOptions | undefined;
  /**
   * Injected STS client, asked once (`GetCallerIdentity`) for the principal that operator
   * actions (redrive, cancel, purge, releaseKey, schedule pause, resume and delete) are
   * recorded as (docs/adr/0039-operator-audit.md). @default a new client, made on first use
   */
  readonly sts?: STSClient | undefined;
  /**
   * The principal operator actions are recorded as, instead of asking STS: a name the caller
   * vouches for, e.g. a service's own. @default the STS caller identity's ARN
   */
  readonly principal?: string | undefined;
}
