/**
 * Where a handler's result is kept: on the record, or, above the bucket's threshold, in S3.
 * When a claim-checked result cannot be uploaded, the upload is retried under the held lease
 * (kept alive meanwhile), with backoff, so an S3 outage neither loses the success nor runs
 * the handler again (docs/adr/0034-dependency-outages.md). The upload's code is loaded with
 * the optional features, at the first result that goes to S3
 * (docs/adr/0070-store-parts-on-first-use.md).
 */

import type { ObjectAccess } from '../claim-check/object-store.js';
import { Defaults } from '../core/constants.js';
import type { ClaimCheckMismatchError } from '../core/errors.js';
import {
  describeError,
  LeaseLostError,
  type PayloadTooLargeError,
  ResultTooLargeError,
} from '../core/errors.js';
import type { TaskLogger } from '../observability/logger.js';
import type { Lease } from '../store/task-store.js';
import type { Checked, StoredResult } from './claim-check.js';
import type { ProcessorDeps } from './deps.js';
import type { Heartbeat } from './heartbeat.js';

/** How long a result upload is retried, at most, before the success is written without it. */
export const RESULT_UPLOAD_RETRY_MS = 10 * 60_000;
/** Time kept back from the invocation's deadline to write the outcome after the retries. */
const OUTCOME_WRITE_MS = 3_000;
/** The first retry's delay; each later one doubles, up to {@link UPLOAD_RETRY_MAX_DELAY_MS}. */
const UPLOAD_RETRY_DELAY_MS = 1_000;
const UPLOAD_RETRY_MAX_DELAY_MS = 30_000;

/** What became of a result: stored (perhaps not where it would be), refused, or the lease lost. */
export type KeptResult =
  | { readonly kind: 'stored'; readonly value: StoredResult }
  | {
      readonly kind: 'refused';
      readonly error: ClaimCheckMismatchError | PayloadTooLargeError | ResultTooLargeError;
    }
  | { readonly kind: 'lost' };

/** The task whose result is kept: its lease, and the invocation's time left. */
interface Holder {
  readonly lease: Lease;
  readonly remainingMs?: (() => number) | undefined;
}

/**
 * The result as the completing write stores it. An offloaded result's upload is retried
 * while S3 fails, with the lease kept alive, for at most {@link RESULT_UPLOAD_RETRY_MS} and
 * never past the invocation's deadline. When the bucket stays down longer, the success is
 * still written, never turned into a failure: with the result on the record when it fits
 * there (up to the largest threshold), else without it, and a note in the history saying so
 * (docs/limits.md).
 */
export async function keepResult(
  value: unknown,
  task: Holder,
  deps: ProcessorDeps,
  heartbeat: Heartbeat,
  controller: AbortController,
  logger: TaskLogger,
): Promise<KeptResult> {
  const prepared = prepareResult(value, task.lease, deps, logger);
  if (!prepared.ok) return { kind: 'refused', error: prepared.error };
  const { json, size, offload } = prepared.value;
  if (json === undefined || !offload) return { kind: 'stored', value: { json } };
  const started = deps.clock();
  for (let failures = 0; ; failures++) {
    try {
      // A chunk that fails to load is an upload that failed: retried, then the success is
      // kept without it, never turned into a failure.
      const { uploadResult } = await import('./optional-features.js');
      return { kind: 'stored', value: await uploadResult(json, task.lease, deps.objects) };
    } catch (err) {
      if (controller.signal.reason instanceof LeaseLostError) return { kind: 'lost' };
      const delayMs = Math.min(UPLOAD_RETRY_MAX_DELAY_MS, UPLOAD_RETRY_DELAY_MS * 2 ** failures);
      const elapsed = deps.clock() - started;
      const deadline = (task.remainingMs?.() ?? Number.POSITIVE_INFINITY) - OUTCOME_WRITE_MS;
      if (elapsed + delayMs > RESULT_UPLOAD_RETRY_MS || delayMs > deadline) {
        logger.error('result upload failed until its retries ran out; the success is kept', {
          error: describeError(err),
          elapsedMs: elapsed,
        });
        return { kind: 'stored', value: withoutUpload(json, size, elapsed, err) };
      }
      if (failures === 0) heartbeat.hold();
      logger.warn('result upload failed; retrying under the lease', {
        error: describeError(err),
        retryInMs: delayMs,
      });
      await sleep(delayMs, controller.signal);
      if (controller.signal.reason instanceof LeaseLostError) return { kind: 'lost' };
    }
  }
}

/** A handler's result, serialised and checked, before any upload. */
export interface PreparedResult {
  readonly json: string | undefined;
  /** Bytes of `json` (UTF-8). */
  readonly size: number;
  /** Above the bucket's threshold: the result goes to S3 (`uploadResult`, ./claim-check.ts). */
  readonly offload: boolean;
}

/**
 * Serialises a handler's result and decides where it goes: above the bucket's threshold to
 * S3, else on the record. A result above `maxResultBytes` is refused: the task goes DEAD
 * with ResultTooLargeError rather than lose it. A result that is not JSON is logged and not
 * stored, as before.
 */
export function prepareResult(
  value: unknown,
  lease: Lease,
  deps: { readonly objects: ObjectAccess; readonly maxResultBytes: number },
  logger: TaskLogger,
): Checked<PreparedResult> {
  const none = { ok: true, value: { json: undefined, size: 0, offload: false } } as const;
  if (value === undefined) return none;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    logger.warn('result is not JSON-serializable and was not stored', {
      error: describeError(err),
    });
    return none;
  }
  if (json === undefined) return none;
  const size = Buffer.byteLength(json, 'utf8');
  if (size > deps.maxResultBytes) {
    return { ok: false, error: new ResultTooLargeError(lease.taskId, size, deps.maxResultBytes) };
  }
  return { ok: true, value: { json, size, offload: deps.objects.offloads(size) } };
}

/** The success without its upload: the result inline when it fits the record, else a note. */
function withoutUpload(json: string, size: number, elapsedMs: number, err: unknown): StoredResult {
  const why = `the payload bucket failed for ${Math.round(elapsedMs / 1000)} s (${describeError(err)})`;
  if (size <= Defaults.MAX_PAYLOAD_THRESHOLD_BYTES) {
    return { json, note: `result stored on the record: ${why}` };
  }
  return { json: undefined, note: `result of ${size} bytes not stored: ${why}` };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
