/**
 * The claim check's references and key layout: a payload or result too large for the record
 * is stored as one S3 object, and the record holds an {@link ObjectRef} to it
 * (docs/adr/0023-claim-check-payloads.md).
 */

import { createHash } from 'node:crypto';
import type { ObjectRef } from '../core/record.js';

/** The key prefixes the IAM grants are scoped to. */
export const ObjectPrefix = {
  /** Payloads: written by producers, read by workers. */
  PAYLOADS: 'payloads/',
  /** Results: written by workers, read by producers and observers. */
  RESULTS: 'results/',
  /** Signal data above 4 KB: written by signal senders, read by workers. */
  SIGNALS: 'signals/',
} as const;

/**
 * A task id as one key segment. Ids are printable ASCII and may hold `/`, `?`, `%` or be
 * `..`; escaping them (and every `.`) keeps one id one segment that no URL handling rewrites.
 * Ids of letters, digits, `-` and `_` (ULIDs, most keys) read as they are.
 */
export function keySegment(taskId: string): string {
  return encodeURIComponent(taskId).replaceAll('.', '%2E');
}

/**
 * The key of a task's payload: `payloads/<id>/<payload hash>`. The hash is part of it, so
 * an enqueue that conflicts with an existing id (another payload) never overwrites the
 * existing task's object, while a retry of the same enqueue writes the same bytes again.
 */
export function payloadKey(taskId: string, payloadHash: string): string {
  return `${ObjectPrefix.PAYLOADS}${keySegment(taskId)}/${payloadHash}`;
}

/**
 * The key of one attempt's result: `results/<id>/<attempt>/<lease token>`. The lease token
 * makes it unique to the claim: a redriven task counts attempts from 1 again, and a worker
 * that lost its lease may still upload; neither can overwrite an object a record names.
 */
export function resultKey(taskId: string, attempt: number, leaseToken: string): string {
  return `${ObjectPrefix.RESULTS}${keySegment(taskId)}/${attempt}/${leaseToken}`;
}

/** Hex SHA-256 of a body. */
export function sha256Hex(body: Uint8Array | string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** `s3://bucket/key`, for messages. */
export function objectLocation(ref: Pick<ObjectRef, 'bucket' | 'key'>): string {
  return `s3://${ref.bucket}/${ref.key}`;
}

/** Reads a stored reference defensively: undefined unless every field has its type. */
export function toObjectRef(value: unknown): ObjectRef | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { bucket, key, size, sha256 } = value as Record<string, unknown>;
  if (typeof bucket !== 'string' || typeof key !== 'string') return undefined;
  if (typeof size !== 'number' || typeof sha256 !== 'string') return undefined;
  return { bucket, key, size, sha256 };
}
