/**
 * The worker's side of the claim check: it reads a claim-checked payload before the handler
 * runs, and stores a large result in S3 before the completing write
 * (docs/adr/0023-claim-check-payloads.md).
 */
import { type ObjectRef, objectLocation, resultKey } from '../claim-check/object-ref.js';
import type { ObjectStore } from '../claim-check/object-store.js';
import { AMBIGUOUS_PAYLOAD, payloadSource } from '../claim-check/payload-source.js';
import { describeError } from '../error-info.js';
import { ResultTooLargeError } from '../errors.js';
import { ClaimCheckMismatchError } from '../feature-errors.js';
import type { TaskLogger } from '../observability/logger.js';
import { payloadHash, type TaskRecord } from '../store/record.js';
import type { Lease } from '../store/task-store.js';

/** A value, or the error that declares the task DEAD. */
type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: ClaimCheckMismatchError | ResultTooLargeError };

/**
 * The record with its payload read from the bucket, when it is claim-checked (one
 * GetObject per attempt). The object must match its reference (size, SHA-256) and the
 * record's payload hash, which the integrity tag covers with the reference; otherwise the
 * task may not run, nor may a record that holds both an inline payload and a reference.
 * An S3 fault throws: that is an outage, and the message's redelivery retries it.
 */
export async function resolvePayload(
  record: TaskRecord,
  objects: ObjectStore,
): Promise<Checked<TaskRecord>> {
  // The same reading of the record as the integrity check's (ADR 0035).
  const source = payloadSource(record);
  if (source.kind === 'inline') return { ok: true, value: record };
  const { ref } = source;
  if (source.kind === 'ambiguous') {
    return {
      ok: false,
      error: new ClaimCheckMismatchError(objectLocation(ref), 'ambiguous', AMBIGUOUS_PAYLOAD),
    };
  }
  try {
    const json = await objects.read(ref);
    if (payloadHash(record.type, json) !== record.payloadHash) {
      const detail = "does not match the record's payload hash";
      throw new ClaimCheckMismatchError(objectLocation(ref), 'payload-hash', detail);
    }
    return { ok: true, value: { ...record, payload: JSON.parse(json) as unknown } };
  } catch (err) {
    if (err instanceof ClaimCheckMismatchError) return { ok: false, error: err };
    throw err;
  }
}

/** What the completing write stores: the result inline, or its reference. */
export interface StoredResult {
  readonly json: string | undefined;
  readonly ref?: ObjectRef | undefined;
}

/**
 * Serialises a handler's result and, above the bucket's threshold, stores it in S3 (one
 * PutObject) under a key of its own claim, before the record names it. A result above
 * `maxResultBytes` is refused: the task goes DEAD with ResultTooLargeError rather than lose
 * it. A result that is not JSON is logged and not stored, as before.
 */
export async function storeResult(
  value: unknown,
  lease: Lease,
  deps: { readonly objects: ObjectStore; readonly maxResultBytes: number },
  logger: TaskLogger,
): Promise<Checked<StoredResult>> {
  if (value === undefined) return { ok: true, value: { json: undefined } };
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    logger.warn('result is not JSON-serializable and was not stored', {
      error: describeError(err),
    });
    return { ok: true, value: { json: undefined } };
  }
  if (json === undefined) return { ok: true, value: { json: undefined } };
  const size = Buffer.byteLength(json, 'utf8');
  if (size > deps.maxResultBytes) {
    return { ok: false, error: new ResultTooLargeError(lease.taskId, size, deps.maxResultBytes) };
  }
  if (!deps.objects.offloads(size)) return { ok: true, value: { json } };
  const key = resultKey(lease.taskId, lease.attempt, lease.leaseToken);
  return { ok: true, value: { json: undefined, ref: await deps.objects.put(key, json) } };
}
