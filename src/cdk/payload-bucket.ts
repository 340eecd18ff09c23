/**
 * The claim-check bucket of a TaskExecutor: payloads and results above the SDK's threshold
 * are stored there under the task id (docs/large-payloads.md). The construct creates an
 * encrypted, private, TLS-only bucket whose objects expire, or takes the caller's bucket;
 * grants reach only the prefix each side needs.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type IBucket,
  type LifecycleRule,
} from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';
import { ObjectPrefix } from '../claim-check/object-ref.js';
import { EnvVars } from '../settings/location.js';
import type { Retention } from '../settings/retention.js';
import type { ExecutorFunction } from './executor-functions.js';
import type { GrantTargets } from './executor-grants.js';
import { iam5Finding } from './nag-finding.js';

/** Options of the bucket the construct creates for `payloadBucket`. */
export interface PayloadBucketOptions {
  /**
   * Objects expire this long after they were written: referenced ones and orphans (an
   * object whose record was never written) alike. Keep it longer than a task can wait and
   * be kept: a task whose payload expired before it ran goes DEAD (`CLAIM_CHECK_MISMATCH`),
   * and a result that expired is no longer returned by `get`.
   * @default - the executor's `retention` plus 14 days (the queue's retention), in whole
   *   days; none with `retention: 'forever'`
   */
  readonly expiration?: Duration;
  /**
   * Where S3 writes the bucket's server access logs.
   * @default - no access logs (every S3 call is in CloudTrail's data events, if enabled)
   */
  readonly serverAccessLogsBucket?: IBucket | Bucket;
  /** Prefix of the access logs' keys. @default - none */
  readonly serverAccessLogsPrefix?: string;
  /** What happens to the bucket when it leaves the stack. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The `payloadBucket` prop: create a bucket (`true` or options), or use the given one.
 * `Bucket` is listed beside `IBucket` because, under `exactOptionalPropertyTypes`, the
 * class's optional members keep it from being assigned to the interface.
 */
export type PayloadBucketProp = boolean | PayloadBucketOptions | IBucket | Bucket;

/** Days past the retention: the longest a message, and so a queued task, can wait. */
const QUEUE_RETENTION_DAYS = 14;
const DAY_MS = 86_400_000;

/** The bucket of `prop`: the caller's, a new one, or none. */
export function createPayloadBucket(
  scope: Construct,
  prop: PayloadBucketProp | undefined,
  context: { readonly key: IKey | undefined; readonly retentionMs: Retention },
): { readonly bucket: IBucket; readonly created?: Bucket } | undefined {
  if (prop === undefined || prop === false) return undefined;
  if (Construct.isConstruct(prop)) return { bucket: prop as IBucket };
  const options: PayloadBucketOptions = prop === true ? {} : prop;
  const { key, retentionMs } = context;
  const created = new Bucket(scope, 'PayloadBucket', {
    encryption: key === undefined ? BucketEncryption.S3_MANAGED : BucketEncryption.KMS,
    ...(key && { encryptionKey: key, bucketKeyEnabled: true }),
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    ...(options.serverAccessLogsBucket && {
      serverAccessLogsBucket: options.serverAccessLogsBucket as IBucket,
    }),
    ...(options.serverAccessLogsPrefix && {
      serverAccessLogsPrefix: options.serverAccessLogsPrefix,
    }),
    lifecycleRules: lifecycleRules(options.expiration ?? defaultExpiration(retentionMs)),
    removalPolicy: options.removalPolicy ?? RemovalPolicy.RETAIN,
  });
  // Bucket declares optional members that IBucket does not, which exactOptionalPropertyTypes
  // refuses; a Bucket is an IBucket.
  return { bucket: created as unknown as IBucket, created };
}

/** The default expiration: retention plus the queue's retention, rounded up to a day. */
export function defaultExpiration(retentionMs: Retention): Duration | undefined {
  if (retentionMs === 'forever') return undefined;
  return Duration.days(Math.ceil(retentionMs / DAY_MS) + QUEUE_RETENTION_DAYS);
}

/** One rule per prefix: expire objects, abort multipart uploads left incomplete after a day. */
function lifecycleRules(expiration: Duration | undefined): LifecycleRule[] {
  return Object.values(ObjectPrefix).map((prefix) => ({
    id: `expire-${prefix.replace('/', '')}`,
    prefix,
    ...(expiration && { expiration }),
    abortIncompleteMultipartUploadAfter: Duration.days(1),
  }));
}

/** Why `<bucket>/payloads/*` and `<bucket>/results/*` are as narrow as object grants get. */
export const OBJECT_PREFIX_REASON =
  'Claim-checked objects are keyed by task id, known only at run time; each statement is scoped to one prefix of the executor’s payload bucket (payloads/* for producers writing and workers reading payloads, results/* for workers writing and readers fetching results, signals/* for signal senders writing and workers reading signal data), with the one object action that side needs.';

/** Object actions on key prefixes, one statement each. */
export type PayloadAccessList = readonly { readonly prefix: string; readonly action: string }[];

/** The object actions of each grant, by prefix. */
export const PayloadAccess = {
  /** grantEnqueue: the producer writes payloads. */
  ENQUEUE: [{ prefix: ObjectPrefix.PAYLOADS, action: 's3:PutObject' }],
  /** grantRead: `get` reads results. */
  READ: [{ prefix: ObjectPrefix.RESULTS, action: 's3:GetObject' }],
  /** grantConsume and the worker: read payloads and signal data, write results. */
  CONSUME: [
    { prefix: ObjectPrefix.PAYLOADS, action: 's3:GetObject' },
    { prefix: ObjectPrefix.RESULTS, action: 's3:PutObject' },
    { prefix: ObjectPrefix.SIGNALS, action: 's3:GetObject' },
  ],
  /** grantSignal: the sender writes signal data above 4 KB. */
  SIGNAL: [{ prefix: ObjectPrefix.SIGNALS, action: 's3:PutObject' }],
} as const;

/**
 * Grants `access` on the bucket's prefixes, one statement each, and acknowledges each
 * prefix wildcard on the principal; with a bucket key other than the executor's, the KMS
 * actions the object calls need. No bucket: an empty grant. The acknowledgement goes on
 * `policy` when given (the worker's managed policy), else on the principal.
 */
export function payloadGrant(
  targets: GrantTargets,
  bucket: IBucket | undefined,
  grantee: IGrantable,
  access: PayloadAccessList,
  policy?: IConstruct,
): Grant {
  if (bucket === undefined) return Grant.drop(grantee, 'no payload bucket');
  const principal = grantee.grantPrincipal;
  const grants = access.map(({ prefix, action }) => {
    const arn = bucket.arnForObjects(`${prefix}*`);
    const one = Grant.addToPrincipal({ grantee, actions: [action], resourceArns: [arn] });
    if (policy !== undefined) {
      targets.acknowledge(policy, iam5Finding(policy, arn), OBJECT_PREFIX_REASON);
    } else if (one.principalStatement !== undefined && Construct.isConstruct(principal)) {
      targets.acknowledge(principal, iam5Finding(principal, arn), OBJECT_PREFIX_REASON, true);
    }
    return one;
  });
  const key = bucket.encryptionKey;
  if (key !== undefined && key !== targets.encryptionKey) {
    const writes = access.some((a) => a.action === 's3:PutObject');
    grants.push(key.grant(grantee, 'kms:Decrypt', ...(writes ? ['kms:GenerateDataKey'] : [])));
  }
  return grants.reduce((all, one) => all.combine(one));
}

/**
 * Sets up the `payloadBucket` prop of an executor: the bucket, the worker's environment
 * variable and object grants, and the cdk-nag acknowledgements of a bucket it created.
 */
export function setUpPayloadBucket(
  scope: Construct,
  prop: PayloadBucketProp | undefined,
  context: {
    readonly key: IKey | undefined;
    readonly retentionMs: Retention;
    readonly worker: ExecutorFunction;
    readonly targets: GrantTargets;
  },
): IBucket | undefined {
  const { worker, targets } = context;
  const made = createPayloadBucket(scope, prop, context);
  if (made === undefined) return undefined;
  worker.function.addEnvironment(EnvVars.PAYLOAD_BUCKET, made.bucket.bucketName);
  payloadGrant(targets, made.bucket, worker.grantee, PayloadAccess.CONSUME, worker.policy);
  const created = made.created;
  if (created === undefined) return made.bucket;
  const options = typeof prop === 'object' ? (prop as PayloadBucketOptions) : {};
  const ack = (id: string, reason: string) => targets.acknowledge(created, id, reason);
  if (options.serverAccessLogsBucket === undefined) {
    const reason =
      'No access-log bucket was given (payloadBucket.serverAccessLogsBucket). Every object is written and read by the executor’s own principals, under IAM grants scoped to one prefix each; CloudTrail data events record object calls when the account enables them.';
    ack('AwsSolutions-S1', reason);
    ack('NIST.800.53.R5-S3BucketLoggingEnabled', reason);
  }
  ack(
    'NIST.800.53.R5-S3BucketReplicationEnabled',
    'The bucket holds transient copies of task payloads and results that expire with the tasks; the task table is the source of truth, and a producer can enqueue a lost payload again under the same id.',
  );
  ack(
    'NIST.800.53.R5-S3BucketVersioningEnabled',
    'Each object is written once under a key unique to its payload or claim (a retry writes the same bytes), and the record keeps its size and SHA-256, so an overwrite is detected on read; versions would only keep expired payloads past their lifecycle expiration.',
  );
  if (context.key === undefined) {
    ack(
      'NIST.800.53.R5-S3DefaultEncryptionKMS',
      'Objects are encrypted at rest with S3-managed keys (SSE-S3). Pass encryptionKey for SSE-KMS with the executor’s customer-managed key.',
    );
  }
  return made.bucket;
}
