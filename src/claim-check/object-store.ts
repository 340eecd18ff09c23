/**
 * The claim-check bucket as the SDK and the worker use it: one PutObject per large payload
 * or result, one GetObject per read, and every read checked against its reference.
 */
import { createHash } from 'node:crypto';
import type { GetObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import { s3ClientConfig } from '../aws/clients.js';
import { loadS3, type S3Sdk } from '../aws/sdk.js';
import { ClaimCheckMismatchError } from '../core/errors.js';
import type { ObjectRef } from '../core/record.js';
import { meterClient } from '../observability/usage-meter.js';
import {
  type ClaimCheckOptions,
  ClaimCheckSettings,
  resolveClaimCheck,
} from './claim-check-settings.js';
import { objectLocation, sha256Hex } from './object-ref.js';

export { type ClaimCheckOptions, ClaimCheckSettings } from './claim-check-settings.js';

/** The chunks of a GetObject body: a Node stream, a web stream, or bytes. */
async function* bodyChunks(body: unknown): AsyncGenerator<Uint8Array> {
  if (body === undefined || body === null) return;
  if (body instanceof Uint8Array) {
    yield body;
    return;
  }
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
      yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    }
    return;
  }
  const bytes = await (
    body as { transformToByteArray(): Promise<Uint8Array> }
  ).transformToByteArray();
  yield bytes;
}

/** Stops a body that is not read to its end, so its connection is let go. */
function destroyBody(body: unknown): void {
  (body as { destroy?: () => void } | undefined)?.destroy?.();
}

/** How {@link ObjectStore.read} reads an object. */
export interface ReadOptions {
  /** Aborts the read (the worker's lease or timeout). */
  readonly signal?: AbortSignal | undefined;
  /** Refuses an object larger than this, before any byte is read. */
  readonly maxBytes?: number | undefined;
  /** The task type whose payload hash is computed on the way (`readChecked`). */
  readonly typeHash?: string | undefined;
}

/** Reads and writes claim-checked objects; see {@link resolveObjectStore}. */
export class ObjectStore extends ClaimCheckSettings {
  private client: S3Client | undefined;

  constructor(
    /** Undefined when no bucket is configured: nothing is offloaded. */
    bucket: string | undefined,
    thresholdBytes: number,
    s3?: S3Client,
  ) {
    super(bucket, thresholdBytes);
    this.client = s3;
    // Its requests count in the run-time cost figures (docs/cost.md).
    if (s3 !== undefined) meterClient(s3);
  }

  /** Stores `json` under `key` in the bucket (one PutObject) and returns its reference. */
  async put(key: string, json: string): Promise<ObjectRef> {
    const bucket = this.bucket;
    if (bucket === undefined) throw new Error('ObjectStore.put needs a bucket');
    const body = Buffer.from(json, 'utf8');
    const sdk = await loadS3();
    await this.s3(sdk).send(
      new sdk.PutObjectCommand({
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
   * Bounded: a reference larger than `maxBytes` is refused before any request, an object
   * whose length S3 reports differs from the reference before its body is read, and a body
   * that runs past the reference's size is cut off there. The body is read into one buffer
   * of the reference's size and hashed as it arrives, so the peak is that buffer and the
   * text decoded from it (docs/large-payloads.md). With `typeHash`, the SHA-256 of
   * `type`, NUL and the bytes is computed on the way too (the record's payload hash).
   *
   * @throws ClaimCheckMismatchError when the object is missing, too large or differs.
   */
  async read(ref: ObjectRef, options: ReadOptions = {}): Promise<string> {
    return (await this.readChecked(ref, options)).text;
  }

  /** {@link read}, with the payload hash of `typeHash` when asked for. */
  async readChecked(
    ref: ObjectRef,
    options: ReadOptions = {},
  ): Promise<{ readonly text: string; readonly payloadHash?: string | undefined }> {
    const where = objectLocation(ref);
    if (this.bucket !== undefined && ref.bucket !== this.bucket) {
      throw new ClaimCheckMismatchError(where, 'bucket', `is not in the bucket ${this.bucket}`);
    }
    const max = options.maxBytes ?? Number.POSITIVE_INFINITY;
    if (!Number.isSafeInteger(ref.size) || ref.size < 0 || ref.size > max) {
      const detail = `is ${ref.size} bytes by its reference, above the limit of ${max}`;
      throw new ClaimCheckMismatchError(where, 'size', detail);
    }
    let out: GetObjectCommandOutput;
    try {
      const sdk = await loadS3();
      const command = new sdk.GetObjectCommand({ Bucket: ref.bucket, Key: ref.key });
      const signal = options.signal;
      out = await this.s3(sdk).send(command, signal === undefined ? {} : { abortSignal: signal });
    } catch (err) {
      if ((err as { name?: unknown }).name !== 'NoSuchKey') throw err;
      throw new ClaimCheckMismatchError(where, 'missing', 'does not exist (deleted or expired)');
    }
    if (out.ContentLength !== undefined && out.ContentLength !== ref.size) {
      destroyBody(out.Body);
      const detail = `is ${out.ContentLength} bytes; the record says ${ref.size}`;
      throw new ClaimCheckMismatchError(where, 'size', detail);
    }
    const bytes = Buffer.allocUnsafe(ref.size);
    const sha = createHash('sha256');
    const typed = options.typeHash === undefined ? undefined : createHash('sha256');
    typed?.update(options.typeHash ?? '').update('\0');
    let length = 0;
    for await (const chunk of bodyChunks(out.Body)) {
      if (length + chunk.length > ref.size) {
        destroyBody(out.Body);
        const detail = `is more than ${ref.size} bytes, the size the record says`;
        throw new ClaimCheckMismatchError(where, 'size', detail);
      }
      bytes.set(chunk, length);
      length += chunk.length;
      sha.update(chunk);
      typed?.update(chunk);
    }
    if (length !== ref.size) {
      const detail = `is ${length} bytes; the record says ${ref.size}`;
      throw new ClaimCheckMismatchError(where, 'size', detail);
    }
    if (sha.digest('hex') !== ref.sha256) {
      throw new ClaimCheckMismatchError(where, 'sha256', "does not match the record's SHA-256");
    }
    return { text: bytes.toString('utf8'), payloadHash: typed?.digest('hex') };
  }

  /** The client: the injected one, else one made on first use (the SDK's package with it). */
  private s3(sdk: S3Sdk): S3Client {
    if (this.client === undefined) {
      this.client = new sdk.S3Client(s3ClientConfig());
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
  const { bucket, thresholdBytes } = resolveClaimCheck(options, env);
  return new ObjectStore(bucket, thresholdBytes, options.s3);
}

/** What the worker calls of an object store; its reads and writes may load on first use. */
export type ObjectAccess = Pick<
  ObjectStore,
  'bucket' | 'thresholdBytes' | 'offloads' | 'limit' | 'put' | 'read' | 'readChecked'
>;
