/**
 * The worker's side of the claim check: it reads a claim-checked payload before the handler
 * runs, and stores a large result in S3 before the completing write
 * (docs/adr/0023-claim-check-payloads.md). Loaded with the optional features, on the first
 * record whose payload is not inline or the first result above the bucket's threshold
 * (docs/adr/0070-store-parts-on-first-use.md).
 */
import { objectLocation, resultKey } from '../claim-check/object-ref.js';
import type { ObjectAccess } from '../claim-check/object-store.js';
import { AMBIGUOUS_PAYLOAD, payloadSource } from '../claim-check/payload-source.js';
import {
  ClaimCheckMismatchError,
  PayloadTooLargeError,
  type ResultTooLargeError,
} from '../core/errors.js';
import type { ObjectRef, TaskRecord } from '../core/record.js';
import type { Lease } from '../store/task-store.js';

/** A value, or the error that declares the task DEAD. */
export type Checked<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly error: ClaimCheckMismatchError | PayloadTooLargeError | ResultTooLargeError;
    };

/**
 * The record with its payload read from the bucket, when it is claim-checked (one
 * GetObject per attempt). The object must match its reference (size, SHA-256) and the
 * record's payload hash, which the integrity tag covers with the reference; otherwise the
 * task may not run, nor may a record that holds both an inline payload and a reference. A
 * payload above `maxPayloadBytes` is refused before it is read: bad input, never run. An S3
 * fault throws: that is an outage, which gives the claim back unspent (see outage.ts).
 */
export async function resolvePayload(
  record: TaskRecord,
  deps: { readonly objects: ObjectAccess; readonly maxPayloadBytes: number },
  signal?: AbortSignal,
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
  if (ref.size > deps.maxPayloadBytes) {
    return {
      ok: false,
      error: new PayloadTooLargeError(record.type, ref.size, deps.maxPayloadBytes),
    };
  }
  try {
    const read = await deps.objects.readChecked(ref, {
      signal,
      maxBytes: deps.maxPayloadBytes,
      typeHash: record.type,
    });
    if (read.payloadHash !== record.payloadHash) {
      const detail = "does not match the record's payload hash";
      throw new ClaimCheckMismatchError(objectLocation(ref), 'payload-hash', detail);
    }
    return { ok: true, value: { ...record, payload: JSON.parse(read.text) as unknown } };
  } catch (err) {
    if (err instanceof ClaimCheckMismatchError) return { ok: false, error: err };
    throw err;
  }
}

/** What the completing write stores: the result inline, or its reference. */
export interface StoredResult {
  readonly json: string | undefined;
  readonly ref?: ObjectRef | undefined;
  /** Added to the success's history entry: why the result is not where it would be. */
  readonly note?: string | undefined;
}

/**
 * Stores an offloaded result in S3 (one PutObject) under a key of its own claim, before the
 * record names it. An S3 fault throws; the caller retries it under the lease.
 */
export async function uploadResult(
  json: string,
  lease: Lease,
  objects: ObjectAccess,
): Promise<StoredResult> {
  const key = resultKey(lease.taskId, lease.attempt, lease.leaseToken);
  return { json: undefined, ref: await objects.put(key, json) };
}
