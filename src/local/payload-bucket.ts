/**
 * The claim-check bucket in an emulator: created with the same lifecycle rules as the CDK
 * construct's bucket, so that local runs store large payloads and results as AWS does.
 */
import {
  BucketAlreadyOwnedByYou,
  CreateBucketCommand,
  PutBucketLifecycleConfigurationCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { ObjectPrefix } from '../claim-check/object-ref.js';

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
 * `expirationDays` and aborts incomplete multipart uploads after a day. Idempotent.
 */
export async function provisionPayloadBucket(
  s3: S3Client,
  bucket: string,
  expirationDays: number,
): Promise<string> {
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    if (!(err instanceof BucketAlreadyOwnedByYou)) throw err;
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
