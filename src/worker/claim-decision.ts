import { Defaults, isTerminal, TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';

/** What a worker should do with a delivered message, given the task's current record. */
export type ClaimDecision =
  /** Take the task: it is queued, pending, due, or its lease expired with attempts left. */
  | { readonly kind: 'claim' }
  /** Acknowledge without running: the task is already finished (a duplicate delivery). */
  | { readonly kind: 'drop-duplicate' }
  /** Keep the message in flight: the task is DEAD and parks its ordering key. */
  | { readonly kind: 'hold-parked' }
  /**
   * Keep the message in flight for `delayMs`, noting its handle on the record: the task is
   * SUSPENDED and not due yet (the message is its timer), or PAUSED with an ordering key (the
   * message holds the key) (docs/adr/0048-durable-sleep-signals-pause.md).
   */
  | { readonly kind: 'hold'; readonly delayMs: number; readonly reason: string }
  /** Acknowledge without running: the task is PAUSED without a key; its resume sends anew. */
  | { readonly kind: 'drop-paused' }
  /** Return the message for later: the task is leased by a live worker, or not yet due. */
  | { readonly kind: 'defer'; readonly delayMs: number; readonly reason: string }
  /** The lease expired on the final attempt: declare the task dead instead of running it. */
  | { readonly kind: 'expire' };

/**
 * The claim guard, as a pure function of the record and the time. The worker claims first
 * and decides only when the claim is refused, from the record DynamoDB returned with the
 * refusal (ALL_OLD); the claim's condition encodes the same facts, so a decision made on a
 * record that has since moved can only lose the next race, never break a guarantee.
 */
export function decideClaim(record: TaskRecord, now: number): ClaimDecision {
  if (record.status === TaskStatus.DEAD && record.parkedKey !== undefined) {
    return { kind: 'hold-parked' };
  }
  // No message is sent for a WAITING task: its release sends one. A stray message is not
  // its turn, and is dropped like a duplicate (docs/adr/0030-dependencies.md).
  if (isTerminal(record.status) || record.status === TaskStatus.WAITING) {
    return { kind: 'drop-duplicate' };
  }
  const longest = Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS * 1000;
  if (record.status === TaskStatus.PAUSED) {
    return record.orderingKey === undefined
      ? { kind: 'drop-paused' }
      : { kind: 'hold', delayMs: longest, reason: 'paused, holding its ordering key' };
  }
  if (record.status === TaskStatus.SUSPENDED) {
    const until = record.wait?.until;
    if (record.woken === true || (until !== undefined && until <= now)) return { kind: 'claim' };
    const delayMs = until === undefined ? longest : Math.min(longest, until - now);
    return { kind: 'hold', delayMs, reason: 'suspended, not due yet' };
  }
  if (record.status === TaskStatus.RUNNING) {
    const expiresAt = record.leaseExpiresAt ?? 0;
    if (expiresAt > now) {
      return { kind: 'defer', delayMs: expiresAt - now, reason: 'leased by another attempt' };
    }
    return record.attempt >= record.maxAttempts ? { kind: 'expire' } : { kind: 'claim' };
  }
  // A delayed task is held back until runAt: SCHEDULED ones whose schedule fired early (clock
  // skew), and PENDING/QUEUED ones sent at once because runAt was within the threshold.
  if (record.runAt !== undefined && record.runAt > now) {
    return { kind: 'defer', delayMs: record.runAt - now, reason: 'not yet due' };
  }
  if (record.attempt >= record.maxAttempts) {
    // Unreachable through the store's transitions (a retry is only written with attempts
    // left); treated as finished rather than run beyond the bound.
    return { kind: 'drop-duplicate' };
  }
  return { kind: 'claim' };
}

/**
 * Whether claiming this record takes over a lost lease: it is RUNNING under an expired
 * lease, or the sweeper requeued it after one and nobody has claimed it since (`leaseLost`,
 * set by the requeue, cleared by the next claim and by a redrive). The attempt that lost the
 * lease may have crashed its worker, so this one may too. The fresh phase's claim refuses
 * exactly these records (docs/adr/0020-claim-without-pre-read.md).
 */
export function isLeaseTakeover(record: TaskRecord): boolean {
  return record.status === TaskStatus.RUNNING || record.leaseLost;
}
