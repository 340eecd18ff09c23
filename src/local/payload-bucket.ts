/**
 * The claim-check bucket in an emulator: created with the same lifecycle rules as the CDK
 * construct's bucket, so that local runs store large payloads and results as AWS does.
 */
import {
  BucketAlreadyOwnedByYou,
  CreateBucketCommand,
  HeadBucketCommand,
  NotFound,
  PutBucketLifecycleConfigurationCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { ObjectPrefix } from '../claim-check/object-ref.js';
import { Defaults } from '../core/constants.js';
import type { ExecutorLocation } from '../settings/location.js';

/** The emulator bucket's name for an executor: `<name>-payloads`, lowercased. */
export function localPayloadBucketName(executorName: string): string {
  const base = executorName
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 54);
  return `${base.replace(/^-+|-+$/g, '') || 'tasklane'}-payloads`;
}

/**
 * Creates the bucket unless it exists, with a rule per prefix that expires objects after
 * `expirationDays` and aborts incomplete multipart uploads after a day. A bucket that exists
 * is left as it is, its lifecycle rules included: provisioning never changes what it did not
 * create. Idempotent.
 */
export async function provisionPayloadBucket(
  s3: S3Client,
  bucket: string,
  expirationDays: number,
): Promise<string> {
  // Look first: in us-east-1, CreateBucket answers success for a bucket the caller owns.
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    return bucket;
  } catch (err) {
    if (!(err instanceof NotFound)) throw err;
  }
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    if (!(err instanceof BucketAlreadyOwnedByYou)) throw err;
    return bucket;
  }
  await s3.send(
    new PutBucketLifecycleConfigurationCommand({
      Bucket: bucket,
      LifecycleConfiguration: {
        Rules: Object.values(ObjectPrefix).map((prefix) => ({
          ID: `expire-${prefix.replace('/', '')}`,
          Status: 'Enabled',
          Filter: { Prefix: prefix },
          Expiration: { Days: expirationDays },
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
        })),
      },
    }),
  );
  return bucket;
}

/**
 * The location with the claim-check bucket: created (`<name>-payloads`, objects expiring
 * after the default retention plus 14 days, as the construct's) when `enabled` and the
 * location names none.
 */
export async function withPayloadBucket<L extends ExecutorLocation>(
  enabled: boolean | undefined,
  name: string,
  s3: S3Client,
  location: L,
): Promise<L> {
  if (enabled !== true || location.payloadBucket !== undefined) return location;
  const expirationDays = Math.ceil(Defaults.RETENTION_MS / 86_400_000) + 14;
  const bucket = await provisionPayloadBucket(s3, localPayloadBucketName(name), expirationDays);
  return { ...location, payloadBucket: bucket };
}
