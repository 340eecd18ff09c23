/**
 * The claim check's settings, apart from its reads and writes (object-store.ts): the bucket,
 * the threshold above which a value goes to it, and the limits that follow. A worker decides
 * with these alone whether a value is offloaded, and loads the reads and writes on first use
 * (docs/adr/0069-worker-chunks.md).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { Defaults } from '../core/constants.js';
import { ValidationError } from '../core/errors.js';
import { EnvVars } from '../settings/location.js';

/** The claim-check options of a TaskClient or worker. */
export interface ClaimCheckOptions {
  /** The bucket. @default `TASKLANE_PAYLOAD_BUCKET`, else none */
  readonly payloadBucket?: string | undefined;
  /**
   * With a bucket, payloads and results larger than this (UTF-8 JSON bytes) go to S3.
   * 0 to 131072. @default 65536
   */
  readonly payloadThresholdBytes?: number | undefined;
  /** Injected S3 client. @default a new client from the environment, made on first use */
  readonly s3?: S3Client | undefined;
}

/** Where claim-checked values go, and from what size. */
export class ClaimCheckSettings {
  constructor(
    /** Undefined when no bucket is configured: nothing is offloaded. */
    readonly bucket: string | undefined,
    readonly thresholdBytes: number,
  ) {}

  /** Whether a value of `sizeBytes` goes to S3: only with a bucket, above the threshold. */
  offloads(sizeBytes: number): boolean {
    return this.bucket !== undefined && sizeBytes > this.thresholdBytes;
  }

  /** The largest value accepted: `configured`, else 100 MiB with a bucket, else `inline`. */
  limit(configured: number | undefined, inline: number): number {
    return configured ?? (this.bucket === undefined ? inline : Defaults.MAX_CLAIM_CHECK_BYTES);
  }
}

/**
 * The claim-check settings of a client or worker, from its options, then the environment.
 *
 * @throws ValidationError when the threshold is not a whole number of bytes from 0 to 131072.
 */
export function resolveClaimCheck(
  options: ClaimCheckOptions,
  env: NodeJS.ProcessEnv = process.env,
): ClaimCheckSettings {
  const bucket = options.payloadBucket ?? env[EnvVars.PAYLOAD_BUCKET];
  const threshold = options.payloadThresholdBytes ?? Defaults.PAYLOAD_THRESHOLD_BYTES;
  const max = Defaults.MAX_PAYLOAD_THRESHOLD_BYTES;
  if (!Number.isSafeInteger(threshold) || threshold < 0 || threshold > max) {
    throw new ValidationError('claim-check options', [
      {
        path: 'payloadThresholdBytes',
        message: `expected a whole number of bytes from 0 to ${max}, received ${String(threshold)}`,
      },
    ]);
  }
  return new ClaimCheckSettings(bucket === '' ? undefined : bucket, threshold);
}
