/**
 * The rate-limit step of the claim loop: before a task of a limited type is claimed, it takes
 * a start from its bucket (one conditional write). A start due within a few seconds is waited
 * for here, with the message in flight; a later one hands the message back, hidden until
 * about then, with no attempt used and nothing written to the task (ADR 0026).
 */
import { type BucketWrite, bucketKey, type TokenBuckets } from '../store/token-bucket.js';
import type { TaskDefinition } from '../tasks/task-definition.js';

/** The longest a worker waits in process for a booked start; later ones go back to the queue. */
export const MAX_WAIT_IN_WORKER_MS = 5_000;
/** SQS's longest visibility timeout (12 h): no deferral is longer. */
const MAX_DEFERRAL_MS = 43_200_000;
/** Bucket writes per task before the task is deferred as contended. */
const WRITE_ROUNDS = 3;
/** Bounds the worker's memory of buckets (one number each); it is only a first guess. */
const MAX_KNOWN_BUCKETS = 10_000;

/** What the rate limit says about a task that is about to be claimed. */
export type Admission =
  /** Claim it now: no limit, or its start was granted (and waited for). */
  | { readonly kind: 'go' }
  /** Hand the message back for `delayMs`: the bucket has no start for it soon enough. */
  | { readonly kind: 'defer'; readonly delayMs: number; readonly reason: string };

/** What the worker knows of the call: its time budget and the message's receive count. */
export interface AdmitOptions {
  /** How long the task may still wait before its claim (the invocation's slack). */
  readonly maxWaitMs: number;
  /** The message's ApproximateReceiveCount: deferrals spread further each time. */
  readonly receiveCount: number;
}

/** The next step for a bucket whose `tat` is believed to be `knownTat`. */
export type BucketPlan = BucketWrite | { readonly kind: 'full'; readonly waitMs: number };

/**
 * Chooses the conditional write from the bucket's believed state (GCRA with no burst: a
 * start is granted at `max(tat, now)` when that is within `horizonMs`). A wrong belief only
 * costs a refused write, whose ALL_OLD value corrects it; the limit itself is checked by
 * DynamoDB in the write's condition.
 */
export function planBucketWrite(
  knownTat: number | undefined,
  now: number,
  emissionMs: number,
  horizonMs: number,
): BucketPlan {
  if (knownTat === undefined || knownTat <= now) return { kind: 'idle', now, emissionMs };
  if (knownTat <= now + horizonMs) return { kind: 'booked', now, emissionMs, horizonMs };
  return { kind: 'full', waitMs: knownTat - horizonMs - now };
}

/**
 * How long a refused task's message stays hidden: until the bucket could book it (`waitMs`),
 * plus a random share of a spread that doubles with each receive, so a backlog of deferred
 * tasks comes back spread out rather than all at once, and each task uses few receives
 * (about log2 of its wait over {@link MAX_WAIT_IN_WORKER_MS}). At most 12 hours.
 */
export function deferralMs(waitMs: number, receiveCount: number, random: () => number): number {
  const doublings = Math.min(Math.max(receiveCount, 1) - 1, 16);
  const spread = MAX_WAIT_IN_WORKER_MS * 2 ** doublings;
  return Math.min(MAX_DEFERRAL_MS, Math.max(0, waitMs) + random() * spread);
}

/** Takes starts from the buckets of the worker's limited task types. */
export class RateLimiter {
  /** The last `tat` seen per bucket: the first guess of the next write's form. */
  private readonly known = new Map<string, number>();

  constructor(
    private readonly buckets: Pick<TokenBuckets, 'take'>,
    private readonly clock: () => number,
    private readonly random: () => number,
    private readonly sleep: (ms: number) => Promise<void> = delay,
  ) {}

  /**
   * Takes a start for `task` from its type's bucket (its key's, with `perKey`); a type without
   * a limit writes nothing.
   * Waits for a start booked within `maxWaitMs` (and {@link MAX_WAIT_IN_WORKER_MS}).
   *
   * @throws whatever DynamoDB throws other than a condition failure.
   */
  async admit(
    definition: TaskDefinition | undefined,
    task: { readonly id: string; readonly type: string; readonly orderingKey?: string | undefined },
    options: AdmitOptions,
  ): Promise<Admission> {
    const limit = definition?.rateLimit;
    if (limit === undefined) return { kind: 'go' };
    const key = bucketKey(task.type, limit.perKey ? task.orderingKey : undefined);
    const horizonMs = Math.max(0, Math.min(MAX_WAIT_IN_WORKER_MS, options.maxWaitMs));
    let tat = this.known.get(key);
    for (let round = 0; round < WRITE_ROUNDS; round++) {
      const plan = planBucketWrite(tat, this.clock(), limit.emissionMs, horizonMs);
      if (plan.kind === 'full') {
        const delayMs = deferralMs(plan.waitMs, options.receiveCount, this.random);
        return { kind: 'defer', delayMs, reason: `rate limit: next start in ${plan.waitMs} ms` };
      }
      const result = await this.buckets.take(key, plan);
      tat = result.tat;
      this.remember(key, tat);
      if (result.kind === 'granted') {
        const wait = result.slotAt - this.clock();
        if (wait > 0) await this.sleep(wait);
        return { kind: 'go' };
      }
    }
    const delayMs = deferralMs(limit.emissionMs, options.receiveCount, this.random);
    return { kind: 'defer', delayMs, reason: 'rate limit: bucket contended' };
  }

  private remember(key: string, tat: number | undefined): void {
    if (tat === undefined) {
      this.known.delete(key);
      return;
    }
    if (this.known.size >= MAX_KNOWN_BUCKETS && !this.known.has(key)) this.known.clear();
    this.known.set(key, tat);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
