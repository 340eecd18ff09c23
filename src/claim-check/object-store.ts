/**
 * The claim-check bucket as the SDK and the worker use it: one PutObject per large payload
 * or result, one GetObject per read, and every read checked against its reference.
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { s3ClientConfig } from '../aws-clients.js';
import { EnvVars } from '../config.js';
import { Defaults } from '../constants.js';
import { ValidationError } from '../errors.js';
import { ClaimCheckMismatchError } from '../feature-errors.js';
import { meterClient } from '../observability/usage-meter.js';
import { type ObjectRef, objectLocation, sha256Hex } from './object-ref.js';

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

/** Reads and writes claim-checked objects; see {@link resolveObjectStore}. */
export class ObjectStore {
  private client: S3Client | undefined;

  constructor(
    /** Undefined when no bucket is configured: nothing is offloaded. */
    readonly bucket: string | undefined,
    readonly thresholdBytes: number,
    s3?: S3Client,
  ) {
    this.client = s3;
    // Its requests count in the run-time cost figures (docs/cost.md).
    if (s3 !== undefined) meterClient(s3);
  }

  /** Whether a value of `sizeBytes` goes to S3: only with a bucket, above the threshold. */
  offloads(sizeBytes: number): boolean {
    return this.bucket !== undefined && sizeBytes > this.thresholdBytes;
  }

  /** The largest value accepted: `configured`, else 100 MiB with a bucket, else `inline`. */
  limit(configured: number | undefined, inline: number): number {
    return configured ?? (this.bucket === undefined ? inline : Defaults.MAX_CLAIM_CHECK_BYTES);
  }

  /** Stores `json` under `key` in the bucket (one PutObject) and returns its reference. */
  async put(key: string, json: string): Promise<ObjectRef> {
    const bucket = this.bucket;
    if (bucket === undefined) throw new Error('ObjectStore.put needs a bucket');
    const body = Buffer.from(json, 'utf8');
    await this.s3().send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: body,
        ContentLength: body.length,
        ContentType: 'application/json',
      }),
    );
    return { bucket, key, size: body.length, sha256: sha256Hex(body) };
  }

  /**
   * Reads an object (one GetObject) and checks it against its reference: the bucket (when
   * one is configured), the size and the SHA-256. Returns its text.
   *
   * @throws ClaimCheckMismatchError when the object is missing or differs.
   */
  async read(ref: ObjectRef): Promise<string> {
    const where = objectLocation(ref);
    if (this.bucket !== undefined && ref.bucket !== this.bucket) {
      throw new ClaimCheckMismatchError(where, 'bucket', `is not in the bucket ${this.bucket}`);
    }
    let bytes: Uint8Array;
    try {
      const out = await this.s3().send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }));
      bytes = (await out.Body?.transformToByteArray()) ?? new Uint8Array();
    } catch (err) {
      if ((err as { name?: unknown }).name !== 'NoSuchKey') throw err;
      throw new ClaimCheckMismatchError(where, 'missing', 'does not exist (deleted or expired)');
    }
    if (bytes.length !== ref.size) {
      throw new ClaimCheckMismatchError(
        where,
        'size',
        `is ${bytes.length} bytes; the record says ${ref.size}`,
      );
    }
    if (sha256Hex(bytes) !== ref.sha256) {
      throw new ClaimCheckMismatchError(where, 'sha256', "does not match the record's SHA-256");
    }
    return Buffer.from(bytes).toString('utf8');
  }

  private s3(): S3Client {
    if (this.client === undefined) {
      this.client = new S3Client(s3ClientConfig());
      meterClient(this.client);
    }
    return this.client;
  }
}

/**
 * The object store of a client or worker, from its options, then the environment.
 *
 * @throws ValidationError when the threshold is not a whole number of bytes from 0 to 131072.
 */
export function resolveObjectStore(
  options: ClaimCheckOptions,
  env: NodeJS.ProcessEnv = process.env,
): ObjectStore {
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
  return new ObjectStore(bucket === '' ? undefined : bucket, threshold, options.s3);
}
