/** Props of the TaskExecutor construct, each with its default. */

import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import type { IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Runtime } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { PriceTable } from '../observability/cost.js';
import type { LaneProps } from '../settings/lanes.js';
import type { PayloadBucketProp } from './payload-bucket.js';

/** Props of {@link TaskExecutor}. */
export interface TaskExecutorProps {
  /**
   * Prefix of every resource name: `<name>-work.fifo`, `<name>-dlq.fifo`, `<name>-tasks`,
   * the schedule group `<name>`. 1-60 characters of A-Z a-z 0-9 _ -. Queue names are
   * explicit (with `.fifo`), so two executors in one stack need two names.
   * @default - the stack name
   */
  readonly name?: string;
  /**
   * Path of the worker's entry module, which exports
   * `handler = createWorker(tasks).lambdaHandler`. It is bundled with esbuild (install
   * `esbuild` in the CDK app), locally, without Docker; `@aws-sdk/*` comes from the Lambda
   * runtime. A relative path is resolved from the current working directory (the CDK app's
   * root).
   */
  readonly workerEntry: string;
  /** The worker function's timeout, 1 s to 15 min. @default Duration.seconds(60) */
  readonly workerTimeout?: Duration;
  /**
   * The worker function's memory, in MB. With a `payloadBucket`, keep it above the largest
   * payload the worker reads, about 4.5 times its JSON size (docs/large-payloads.md).
   * @default 512; 1024 with a `payloadBucket`
   */
  readonly workerMemorySize?: number;
  /**
   * The Lambda runtime of the worker and the sweeper: a Node.js runtime, 24 or later (their
   * bundles are built for Node.js 24). Pin it to keep a runtime across aws-cdk-lib upgrades.
   * @default - the newest Node.js runtime the installed aws-cdk-lib knows, as cdk-nag's
   * AwsSolutions-L1 expects (Node.js 24 with aws-cdk-lib 2.276)
   */
  readonly lambdaRuntime?: Runtime;
  /** Extra environment variables for the worker (task handlers' configuration). @default - none */
  readonly workerEnvironment?: Readonly<Record<string, string>>;
  /**
   * The work queue's visibility timeout: at least 6 × workerTimeout, at most 12 hours.
   * @default - 6 × workerTimeout
   */
  readonly visibilityTimeout?: Duration;
  /** The largest `retry.maxAttempts` of your task types, 1 to 100. @default 3 */
  readonly maxAttempts?: number;
  /**
   * The largest `retry.maxDelayMs` of your task types. With maxAttempts and workerTimeout it
   * bounds the retry horizon, maxAttempts × (maxRetryDelay + workerTimeout), which must stay
   * within half of the work queue's message retention (14 days): retries reuse the first
   * message, and SQS counts its retention from the first send.
   * @default Duration.minutes(5)
   */
  readonly maxRetryDelay?: Duration;
  /**
   * How long a SUCCEEDED or CANCELLED task is kept, and so how long its id stays reserved,
   * before DynamoDB's TTL removes it: 1 minute to 3650 days, or `'forever'` (no TTL is
   * written). DEAD tasks stay until purged. Passed to the functions as
   * `TASKLANE_RETENTION_MS`; give producers the same setting (TaskClient's `retention`).
   * @default Duration.days(30)
   */
  readonly retention?: Duration | 'forever';
  /**
   * Shards per status of the task table's status index, 1 to 256: each `status#shard` key
   * takes at most 1,000 write units a second, so give at least your peak tasks per second ÷
   * 250 (docs/status-index.md). Passed to the functions as `TASKLANE_STATUS_SHARDS` and
   * published as the output `<id>StatusShards`; give producers the same (TaskClient's
   * `statusShards`, or `locationFromStackOutputs`). Raising it on a live table is safe;
   * lowering it is not (docs/status-index.md).
   * @default 8
   */
  readonly statusShards?: number;
  /**
   * Receives before SQS moves a message to the DLQ. DynamoDB's attempt count is
   * authoritative; this is a safety net, so it must exceed maxAttempts. @default 50
   */
  readonly maxReceiveCount?: number;
  /** Messages per worker invocation, 1 to 10 (FIFO). @default 10 */
  readonly batchSize?: number;
  /** The event source mapping's maximum concurrent invocations, 2 to 1000. @default 10 */
  readonly maxConcurrency?: number;
  /**
   * Lanes (docs/lanes.md): each is its own FIFO work queue (`<name>-<lane>-work.fifo`) and
   * DLQ, behind its own event source mapping on the worker with its own `maxConcurrency`
   * and `batchSize`, and its own alarms and dashboard row; all lanes share the table, the
   * sweeper and the schedule groups. A task type names its lane with
   * `defineTask(type, { lane })`. The `default` lane (there even when not listed) is the
   * executor's own work queue, whose settings `maxConcurrency` and `batchSize` stay the
   * defaults of every lane. Lane names: 1-20 lowercase letters and digits, starting with a
   * letter; at most 10 lanes. Ordering keys hold within a lane only.
   * The outputs `<id>LaneQueueUrls`, `<id>LaneQueueArns` and `<id>LaneDeadLetterQueueUrls`
   * (and the functions' `TASKLANE_LANE_QUEUE_URLS`, `…_ARNS`, `TASKLANE_LANE_DLQ_URLS`) carry
   * them as JSON objects keyed by lane.
   * @default - no lanes: one work queue for every type
   */
  readonly lanes?: Readonly<Record<string, LaneProps>>;
  /**
   * Reserved concurrency of the worker, at least maxConcurrency. It takes executions from
   * the account's pool, so it is opt-in.
   * @default - none: the mapping's maxConcurrency bounds the worker
   */
  readonly reservedConcurrency?: number;
  /** Retention of the functions' log groups (the audit trail). @default RetentionDays.ONE_YEAR */
  readonly logRetention?: RetentionDays;
  /**
   * Customer-managed KMS key for the executor's data at rest: the three queues, the task
   * table, the functions' log groups and their environment variables. The functions, the
   * scheduler's roles and every grant (`grantEnqueue`, `grantRead`, `grantConsume`,
   * `grantOperate`) may use it. For a key defined in the same app (`new Key(...)`), CloudWatch
   * Logs is allowed to use it for the executor's log groups; an imported key's policy must
   * allow that already.
   * @default - AWS-owned keys: SQS-managed SSE, DynamoDB's default encryption, CloudWatch
   * Logs' own encryption at rest
   */
  readonly encryptionKey?: IKey;
  /**
   * Adds a statement to the work queue's policy that denies `sqs:SendMessage` to every
   * principal but the scheduler role, the sweeper's role, and the roles and users given
   * {@link TaskExecutor.grantEnqueue} or `grantOperate` (which must then be roles or users).
   * It also denies senders that an identity policy alone would allow: other roles of the
   * account, administrators, and other tools. See docs/security.md.
   * @default false
   */
  readonly restrictSenders?: boolean;
  /**
   * Customer-managed key for the log groups only. Its key policy must allow CloudWatch Logs.
   * @default - `encryptionKey`
   */
  readonly logEncryptionKey?: IKey;
  /**
   * Tag every task with a KMS HMAC over its payload and the fields that decide how and where it
   * runs (docs/adr/0035-integrity-tag-v2.md), made by the producer and checked by the worker before the handler runs and by the sweeper before a
   * re-send, so that a principal with write access to the table but no `kms:GenerateMac`
   * cannot change what runs (docs/security.md). Creates an HMAC_256 key (or uses
   * `integrityKey`), passes it to the functions as `TASKLANE_INTEGRITY_KEY_ID` and publishes
   * it as the output `<id>IntegrityKeyId`. Cost: one GenerateMac per created task and one
   * VerifyMac per claimed attempt: at $0.03 per 10,000 KMS requests, $6 per million
   * single-attempt tasks, plus
   * $1 a month for the key. @default false
   */
  readonly integrity?: boolean;
  /**
   * The HMAC_256 key (KeyUsage GENERATE_VERIFY_MAC) of the integrity tag; implies
   * `integrity: true`. @default - a new key when `integrity` is true
   */
  readonly integrityKey?: IKey;
  /**
   * Keys that tagged records before the integrity key took over: the worker and the sweeper
   * verify a record tagged under one of them with it (kms:VerifyMac only), so rotating the key
   * leaves the tasks in flight running. Keep a key here until no record it tagged can still
   * run or be redriven (docs/security.md, "Rotating the integrity key").
   * @default - none
   */
  readonly previousIntegrityKeys?: readonly IKey[];
  /**
   * The claim-check bucket: payloads and results larger than the SDK's threshold (64 KB)
   * are stored there and the record holds a reference (docs/large-payloads.md). `true` or
   * options create a bucket: encrypted with `encryptionKey` (else S3-managed keys), public
   * access blocked, TLS only, objects expiring after the retention plus 14 days. Or pass
   * your own bucket. The worker gets `TASKLANE_PAYLOAD_BUCKET`, `s3:GetObject` on
   * `payloads/*` and `s3:PutObject` on `results/*`; the output `<id>PayloadBucketName`
   * names it. @default - none: payloads up to 256 KB, results up to 32 KB
   */
  readonly payloadBucket?: PayloadBucketProp;
  /**
   * Publish lifecycle events to EventBridge: `Tasklane Task Succeeded`, `Failed`, `Dead` and
   * `Cancelled`, source `tasklane.<name>`, after each transition is written and at least once
   * (docs/events.md). The worker gets `events:PutEvents` on the bus and nothing else there,
   * and `TASKLANE_EVENT_BUS` / `TASKLANE_EVENT_SOURCE` in its environment. Cost: one
   * PutEvents call per worker batch that has events (per 10 events), $1 per million events.
   * @default false
   */
  readonly events?: boolean;
  /**
   * The bus of lifecycle events; implies `events: true`.
   * @default - the account's default bus, when `events` is true
   */
  readonly eventBus?: IEventBus;
  /** Deletion protection of the task table. @default true */
  readonly deletionProtection?: boolean;
  /** What happens to the task table when it leaves the stack. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Where alarms notify (alarm and OK). @default - no actions: alarms show on the dashboard */
  readonly alarmActions?: readonly IAlarmAction[];
  /** Alarm when the oldest task message is older than this. @default Duration.minutes(15) */
  readonly oldestMessageAgeThreshold?: Duration;
  /**
   * Prices of the dashboard's measured cost graph, for a region other than us-east-1.
   * @default us-east-1 on-demand list prices (docs/cost.md)
   */
  readonly costPrices?: PriceTable;
  /**
   * Runs the functions in this VPC. It needs routes to SQS, DynamoDB and CloudWatch Logs
   * (VPC endpoints or NAT).
   * @default - no VPC: the functions reach only AWS APIs, over TLS, with IAM auth
   */
  readonly vpc?: IVpc;
  /** Subnets of `vpc` for the functions. @default - CDK's default selection for `vpc` */
  readonly vpcSubnets?: SubnetSelection;
}
