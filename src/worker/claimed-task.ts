/**
 * A claimed task as the worker runs it: its record, its lease and its message. Apart from
 * execution.ts, so that the attempt's span (attempt-span.ts, loaded on first use) names it
 * without importing what runs it (docs/adr/0070-store-parts-on-first-use.md).
 */
import type { TaskRecord } from '../core/record.js';
import type { Lease } from '../store/task-store.js';
import type { ParkMessage } from './parked.js';

/** A task this worker holds the lease of, and the message it came in. */
export interface ClaimedTask {
  readonly record: TaskRecord;
  readonly lease: Lease;
  readonly message: ParkMessage;
  /** The handler's timeout, cut to the invocation's remaining time. */
  readonly timeoutMs: number;
  /** The claim took over a lost lease (or may have: a takeover-phase claim). */
  readonly takeover: boolean;
  /** The message's receive count: how long an outage sends it away. */
  readonly receiveCount: number;
  /** Milliseconds left before the host ends the invocation; unbounded when absent. */
  readonly remainingMs?: (() => number) | undefined;
}
