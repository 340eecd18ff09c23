/**
 * A rate limit's bucket: one item of the task table holding the limit's theoretical arrival
 * time (`tat`, GCRA), the earliest time the next start may be granted, and the line of
 * deferred starts (`queueAt`, the place the next deferred task is given). Each grant is one
 * conditional UpdateItem whose condition is the limit check itself (the `takeIdle` and
 * `takeBooked` rows of transitions/rate.ts), evaluated by DynamoDB on the stored value, so
 * concurrent workers can never over-spend it (ADR 0026). A place in the line (`queueFirst`,
 * `queueNext`) grants nothing: it paces the deferred tasks' returns (ADR 0053).
 *
 * The item's key contains a space, which no task id can (ids are printable ASCII without
 * spaces), and it has no status-index attributes: it never shows in `get`, `list`, `counts`
 * or a sweep. Its TTL removes it once idle: a missing bucket and an idle one mean the same.
 */
import type { WriteContext } from './store-context.js';
import * as rate from './transitions/rate.js';
import { send } from './transitions/writer.js';

/** The conditional write to try, chosen from the bucket's last known state, for `count` tasks. */
export type BucketWrite =
  /** The bucket is idle (`tat` ≤ now, or no item): the grants are from now on. */
  | {
      readonly kind: 'idle';
      readonly now: number;
      readonly emissionMs: number;
      readonly count: number;
    }
  /**
   * Starts are booked ahead (now < `tat`, the `count`th within now + `horizonMs`): the grants
   * are from the stored `tat` on, which moves on by `count` intervals.
   */
  | {
      readonly kind: 'booked';
      readonly now: number;
      readonly emissionMs: number;
      readonly horizonMs: number;
      readonly count: number;
    }
  /**
   * The bucket is full (`tat` > `full`): places in the line of deferred starts, the first
   * (`queueAt` absent or not beyond `tat`) or the next ones.
   */
  | {
      readonly kind: 'queue-first' | 'queue-next';
      readonly full: number;
      readonly emissionMs: number;
      readonly count: number;
    };

/** The bucket's state as a write saw it. */
export interface BucketState {
  /** The next start the bucket may grant; undefined: no item (an idle bucket). */
  readonly tat: number | undefined;
  /** The next place in the line of deferred starts; undefined: none. */
  readonly queueAt: number | undefined;
}

/** What a bucket write did. */
export type BucketWriteResult =
  /** Granted: the tasks may start at `slots` (ascending, one emission interval apart). */
  | ({ readonly kind: 'granted'; readonly slots: readonly number[] } & BucketState)
  /** Given places in the line: the bucket has no start for the tasks before about `places`. */
  | ({ readonly kind: 'queued'; readonly places: readonly number[] } & BucketState)
  /** The condition failed: the bucket was not as assumed; this is how it was. */
  | ({ readonly kind: 'refused' } & BucketState);

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
    const spaced = (first: number) =>
      Array.from({ length: write.count }, (_, i) => first + i * write.emissionMs);
    switch (write.kind) {
      case 'idle': {
        const sent = await send(this.ctx, rate.takeIdle, { key, ...write });
        if (!sent.accepted) return refused(sent.current);
        const tat = write.now + write.count * write.emissionMs;
        return { kind: 'granted', slots: spaced(write.now), tat, queueAt: undefined };
      }
      case 'booked': {
        const sent = await send(this.ctx, rate.takeBooked, { key, ...write });
        if (!sent.accepted) return refused(sent.current);
        const first = Number(sent.item?.tat);
        const tat = first + write.count * write.emissionMs;
        return { kind: 'granted', slots: spaced(first), tat, queueAt: undefined };
      }
      case 'queue-first':
      case 'queue-next': {
        const row = write.kind === 'queue-first' ? rate.queueFirst : rate.queueNext;
        const sent = await send(this.ctx, row, { key, ...write });
        if (!sent.accepted) return refused(sent.current);
        const state = stateOf(sent.item);
        const first = (state.queueAt ?? 0) - write.count * write.emissionMs;
        return { kind: 'queued', places: spaced(first), ...state };
      }
    }
  }
}

function stateOf(item: Record<string, unknown> | undefined): BucketState {
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return { tat: number(item?.tat), queueAt: number(item?.queueAt) };
}

function refused(current: Record<string, unknown> | undefined): BucketWriteResult {
  return { kind: 'refused', ...stateOf(current) };
}
