/**
 * The rate-limit step of the claim loop: before a task of a limited type is claimed, it takes
 * a start from its bucket (one conditional write). A start due within a few seconds is waited
 * for here, with the message in flight. When the bucket is full, the task takes a place in
 * the bucket's line of deferred starts and its message is handed back, hidden until shortly
 * before that place comes up, with no attempt used and nothing written to the task (ADR 0026,
 * ADR 0053).
 */
import {
  type BucketState,
  type BucketWrite,
  bucketKey,
  type TokenBuckets,
} from '../store/token-bucket.js';
import type { TaskDefinition } from '../tasks/task-definition.js';

/** The longest a worker waits in process for a booked start; later ones go back to the queue. */
export const MAX_WAIT_IN_WORKER_MS = 5_000;
/** SQS's longest visibility timeout (12 h): no deferral is longer. */
const MAX_DEFERRAL_MS = 43_200_000;
/** Bucket writes per task before the task is deferred as contended. */
const WRITE_ROUNDS = 4;
/** A contended task comes back within this (SQS hides a message for whole seconds). */
const CONTENDED_SPREAD_MS = 1_000;
/** Bounds the worker's memory of buckets (two numbers each); it is only a first guess. */
const MAX_KNOWN_BUCKETS = 10_000;

/** What the rate limit says about a task that is about to be claimed. */
export type Admission =
  /** Claim it now: no limit, or its start was granted (and waited for). */
  | { readonly kind: 'go' }
  /** Hand the message back for `delayMs`: the bucket has no start for it soon enough. */
  | { readonly kind: 'defer'; readonly delayMs: number; readonly reason: string };

/** What the worker knows of the call: its time budget. */
export interface AdmitOptions {
  /** How long the task may still wait before its claim (the invocation's slack). */
  readonly maxWaitMs: number;
}

/**
 * Chooses the conditional write from the bucket's believed state, for `count` tasks (GCRA
 * with no burst: starts are granted from `max(tat, now)` on, one emission interval apart, as
 * many as fall within `horizonMs`; when none does, the tasks take places in the line). A
 * wrong belief only costs a refused write, whose ALL_OLD value corrects it; the limit itself
 * is checked by DynamoDB in the write's condition.
 */
export function planBucketWrite(
  known: BucketState,
  now: number,
  emissionMs: number,
  horizonMs: number,
  count = 1,
): BucketWrite {
  const { tat, queueAt } = known;
  if (tat === undefined || tat <= now) {
    const fit = Math.floor(horizonMs / emissionMs) + 1;
    return { kind: 'idle', now, emissionMs, count: Math.min(count, fit) };
  }
  if (tat <= now + horizonMs) {
    const fit = Math.floor((now + horizonMs - tat) / emissionMs) + 1;
    return { kind: 'booked', now, emissionMs, horizonMs, count: Math.min(count, fit) };
  }
  const full = now + horizonMs;
  const kind = queueAt === undefined || queueAt <= tat ? 'queue-first' : 'queue-next';
  return { kind, full, emissionMs, count };
}

/**
 * How long a task given a place in the line stays hidden: until shortly before its place
 * (by half the horizon, so that on its return the place is within the horizon and is booked,
 * and waited for in the worker), at most 12 hours.
 */
export function deferralMs(placeAt: number, now: number, horizonMs: number): number {
  return Math.min(MAX_DEFERRAL_MS, Math.max(0, placeAt - now - horizonMs / 2));
}

/** What one task got from its bucket. */
type Taken =
  | { readonly kind: 'slot'; readonly at: number }
  | { readonly kind: 'place'; readonly at: number }
  | { readonly kind: 'contended' };

/** A task waiting for its bucket's next write. */
interface Taker {
  readonly horizonMs: number;
  readonly resolve: (taken: Taken) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Takes starts from the buckets of the worker's limited task types. The tasks of one bucket
 * that arrive together (a batch's message groups start at once) share its writes: one write
 * grants them consecutive starts, or places, so they neither race one another for the bucket
 * nor pay a write each.
 */
export class RateLimiter {
  /** The last state seen per bucket: the first guess of the next write's form. */
  private readonly known = new Map<string, BucketState>();
  /** Per bucket, the tasks waiting for its next write, and whether a write is under way. */
  private readonly waiting = new Map<string, Taker[]>();

  constructor(
    private readonly buckets: Pick<TokenBuckets, 'take'>,
    private readonly clock: () => number,
    private readonly random: () => number,
    private readonly sleep: (ms: number) => Promise<void> = delay,
  ) {}

  /**
   * Takes a start for `task` from its type's bucket (its key's, with `perKey`); a type without
   * a limit writes nothing.
   * Waits for a start booked within `maxWaitMs` (and {@link MAX_WAIT_IN_WORKER_MS}); with
   * none, takes a place in the line and defers the task until shortly before it.
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
    const taken = await this.take(key, limit.emissionMs, horizonMs);
    const now = this.clock();
    switch (taken.kind) {
      case 'slot':
        if (taken.at > now) await this.sleep(taken.at - now);
        return { kind: 'go' };
      case 'place':
        return {
          kind: 'defer',
          delayMs: deferralMs(taken.at, now, horizonMs),
          reason: `rate limit: next start for this task in ${Math.round(taken.at - now)} ms`,
        };
      case 'contended':
        return {
          kind: 'defer',
          delayMs: this.random() * CONTENDED_SPREAD_MS,
          reason: 'rate limit: bucket contended',
        };
    }
  }

  /** Joins the bucket's next write; starts it unless one is under way. */
  private take(key: string, emissionMs: number, horizonMs: number): Promise<Taken> {
    return new Promise((resolve, reject) => {
      const takers = this.waiting.get(key);
      if (takers !== undefined) {
        takers.push({ horizonMs, resolve, reject });
        return;
      }
      this.waiting.set(key, [{ horizonMs, resolve, reject }]);
      // After the tasks started in the same turn have joined.
      setImmediate(() => void this.serve(key, emissionMs));
    });
  }

  /** Serves the bucket's takers, group by group, until none is left. */
  private async serve(key: string, emissionMs: number): Promise<void> {
    for (;;) {
      const takers = this.waiting.get(key)?.splice(0) ?? [];
      if (takers.length === 0) break;
      try {
        await this.serveGroup(key, emissionMs, takers);
      } catch (err) {
        for (const taker of takers) taker.reject(err);
      }
    }
    this.waiting.delete(key);
  }

  /**
   * Up to {@link WRITE_ROUNDS} writes for a group of takers: each grants some of them starts,
   * in the order they came, or gives them places, or is refused and tells the bucket's state.
   */
  private async serveGroup(key: string, emissionMs: number, takers: Taker[]): Promise<void> {
    let left = takers;
    let state = this.known.get(key) ?? { tat: undefined, queueAt: undefined };
    for (let round = 0; round < WRITE_ROUNDS && left.length > 0; round++) {
      const horizonMs = Math.min(...left.map((taker) => taker.horizonMs));
      const plan = planBucketWrite(state, this.clock(), emissionMs, horizonMs, left.length);
      const result = await this.buckets.take(key, plan);
      // A grant says nothing of the line: the last one seen stays the guess.
      state = result.kind === 'granted' ? { tat: result.tat, queueAt: state.queueAt } : result;
      this.remember(key, state);
      if (result.kind === 'refused') continue;
      const served = left.slice(0, plan.count);
      left = left.slice(plan.count);
      const times = result.kind === 'granted' ? result.slots : result.places;
      const kind = result.kind === 'granted' ? 'slot' : 'place';
      for (const [i, taker] of served.entries()) taker.resolve({ kind, at: times[i] as number });
    }
    for (const taker of left) taker.resolve({ kind: 'contended' });
  }

  private remember(key: string, state: BucketState): void {
    if (state.tat === undefined && state.queueAt === undefined) {
      this.known.delete(key);
      return;
    }
    if (this.known.size >= MAX_KNOWN_BUCKETS && !this.known.has(key)) this.known.clear();
    this.known.set(key, state);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
