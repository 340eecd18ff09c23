/**
 * Where a record's payload is: inline in the item, or claim-checked in the payload bucket.
 * The integrity tag's check and the worker's payload read both decide it here, so the
 * payload the tag was checked over is the payload the handler gets: two separate readings of
 * the record once let a table writer add another task's `payloadRef` to a tagged inline task,
 * the check hashing the inline payload while the worker ran the object
 * (docs/adr/0035-integrity-tag-v2.md).
 */
import type { ObjectRef, TaskRecord } from '../core/record.js';

/** What {@link payloadSource} found. */
export type PayloadSource =
  /** In the item: the payload hash is recomputed from it, whatever `payloadHash` says. */
  | { readonly kind: 'inline'; readonly payload: unknown }
  /** In the bucket: the object must match `ref` and the record's `payloadHash`. */
  | { readonly kind: 'claim-checked'; readonly ref: ObjectRef }
  /**
   * Both an inline payload and a reference. No Tasklane write makes such a record (a
   * create and a debounce fold each store one and remove the other), so it was changed
   * outside Tasklane and may not run.
   */
  | { readonly kind: 'ambiguous'; readonly ref: ObjectRef };

/** The stored attributes that say where the payload is. */
export type PayloadFields = Pick<TaskRecord, 'payload' | 'payloadRef'>;

/** Where the record's payload is; see {@link PayloadSource}. */
export function payloadSource(record: PayloadFields): PayloadSource {
  if (record.payloadRef === undefined) return { kind: 'inline', payload: record.payload };
  if (record.payload !== undefined) return { kind: 'ambiguous', ref: record.payloadRef };
  return { kind: 'claim-checked', ref: record.payloadRef };
}

/** Why a record with both an inline payload and a `payloadRef` is refused. */
export const AMBIGUOUS_PAYLOAD =
  'the record holds both an inline payload and a payloadRef, which no Tasklane write makes';
