/**
 * A rate limit's bucket: one item of the task table holding the limit's theoretical arrival
 * time (`tat`, GCRA), the earliest time the next start may be granted. Each grant is one
 * conditional UpdateItem whose condition is the limit check itself (the `takeIdle` and
 * `takeBooked` rows of transitions/rate.ts), evaluated by DynamoDB on the stored value, so
 * concurrent workers can never over-spend it (ADR 0026).
 *
 * The item's key contains a space, which no task id can (ids are printable ASCII without
 * spaces), and it has no status-index attributes: it never shows in `get`, `list`, `counts`
 * or a sweep. Its TTL removes it once idle: a missing bucket and an idle one mean the same.
 */
import type { WriteContext } from './store-context.js';
import { rate } from './transitions/index.js';
import { send } from './transitions/writer.js';

/** The conditional write to try, chosen from the bucket's last known `tat`. */
export type BucketWrite =
  /** The bucket is idle (`tat` ≤ now, or no item): the grant is for now. */
  | { readonly kind: 'idle'; readonly now: number; readonly emissionMs: number }
  /**
   * Starts are booked ahead (now < `tat` ≤ now + `horizonMs`): the grant is for the stored
   * `tat`, which moves on by `emissionMs`.
   */
  | {
      readonly kind: 'booked';
      readonly now: number;
      readonly emissionMs: number;
      readonly horizonMs: number;
    };

/** What a bucket write did. */
export type BucketWriteResult =
  /** Granted: the task may start at `slotAt`; the bucket's `tat` is now `tat`. */
  | { readonly kind: 'granted'; readonly slotAt: number; readonly tat: number }
  /** The condition failed: the bucket's `tat` (undefined: no item) was not as assumed. */
  | { readonly kind: 'refused'; readonly tat: number | undefined };

/** The bucket item's key for a type, and for an ordering key when the limit is per key. */
export function bucketKey(type: string, orderingKey: string | undefined): string {
  return orderingKey === undefined ? `rate-limit ${type}` : `rate-limit ${type} ${orderingKey}`;
}

/** The rate-limit buckets of one task table. */
export class TokenBuckets {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * One conditional UpdateItem on the bucket `key`. Refused (ALL_OLD) when the bucket is not
   * in the state `write` assumed, which the caller then decides from again.
   *
   * @throws whatever DynamoDB throws other than a condition failure, untouched.
   */
  async take(key: string, write: BucketWrite): Promise<BucketWriteResult> {
    if (write.kind === 'idle') {
      const sent = await send(this.ctx, rate.takeIdle, { key, ...write });
      if (!sent.accepted) return refused(sent.current);
      return { kind: 'granted', slotAt: write.now, tat: write.now + write.emissionMs };
    }
    const sent = await send(this.ctx, rate.takeBooked, { key, ...write });
    if (!sent.accepted) return refused(sent.current);
    const slotAt = Number(sent.item?.tat);
    return { kind: 'granted', slotAt, tat: slotAt + write.emissionMs };
  }
}

function refused(current: Record<string, unknown> | undefined): BucketWriteResult {
  return { kind: 'refused', tat: typeof current?.tat === 'number' ? current.tat : undefined };
}
