import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ValidationError } from '../../../src/core/errors.js';
import type { BucketWrite, BucketWriteResult } from '../../../src/store/token-bucket.js';
import { bucketKey } from '../../../src/store/token-bucket.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import {
  deferralMs,
  MAX_WAIT_IN_WORKER_MS,
  planBucketWrite,
  RateLimiter,
} from '../../../src/worker/rate-limit.js';
import { taskRecord } from '../../helpers/task-record.js';

const schema = z.object({});
const handler = () => undefined;

function rejected(rateLimit: unknown): ValidationError {
  try {
    defineTask('limited', { schema, handler, rateLimit: rateLimit as never });
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

/**
 * A bucket that evaluates the two writes' conditions as DynamoDB does (on the stored value,
 * atomically), yielding to other callers first so concurrent takes interleave.
 */
function modelBucket(random: () => number) {
  const tats = new Map<string, number>();
  const grants: number[] = [];
  const take = async (key: string, write: BucketWrite): Promise<BucketWriteResult> => {
    for (let i = Math.floor(random() * 4); i > 0; i--) await Promise.resolve();
    const tat = tats.get(key);
    if (write.kind === 'idle' && (tat === undefined || tat <= write.now)) {
      tats.set(key, write.now + write.emissionMs);
      grants.push(write.now);
      return { kind: 'granted', slotAt: write.now, tat: write.now + write.emissionMs };
    }
    if (write.kind === 'booked' && tat !== undefined) {
      if (tat > write.now && tat <= write.now + write.horizonMs) {
        tats.set(key, tat + write.emissionMs);
        grants.push(tat);
        return { kind: 'granted', slotAt: tat, tat: tat + write.emissionMs };
      }
    }
    return { kind: 'refused', tat };
  };
  return { take, grants };
}

describe('defineTask rateLimit', () => {
  it('resolves a limit to its emission interval, one bucket per type by default', () => {
    const task = defineTask('limited', {
      schema,
      handler,
      rateLimit: { limit: 100, intervalMs: 60_000 },
    });

    expect(task.rateLimit).toEqual({
      limit: 100,
      intervalMs: 60_000,
      perKey: false,
      emissionMs: 600,
    });
  });

  it('has no limit when the option is absent', () => {
    expect(defineTask('free', { schema, handler }).rateLimit).toBeUndefined();
  });

  it('reports every invalid field at once, quoting what it received', () => {
    const err = rejected({ limit: 0, intervalMs: 500, perKey: 'yes', burst: 3 });

    expect(err.issues.map((i) => i.path)).toEqual([
      'rateLimit.burst',
      'rateLimit.limit',
      'rateLimit.intervalMs',
      'rateLimit.perKey',
    ]);
    expect(err.message).toContain('received number 500');
    expect(err.message).toContain('received "yes"');
  });

  it.each([[null], [5], [[1]]])('rejects %j instead of an object', (given) => {
    expect(rejected(given).issues[0]?.path).toBe('rateLimit');
  });

  it.each([[1.5], [100_001], [Number.NaN]])('rejects a limit of %s', (limit) => {
    expect(rejected({ limit, intervalMs: 1000 }).issues[0]?.path).toBe('rateLimit.limit');
  });
});

describe('bucketKey', () => {
  it('names a key no task id can take, per type or per ordering key', () => {
    expect(bucketKey('send', undefined)).toBe('rate-limit send');
    expect(bucketKey('send', 'tenant-1')).toBe('rate-limit send tenant-1');
    expect(/^[\x21-\x7e]+$/.test(bucketKey('send', undefined))).toBe(false);
  });
});

describe('planBucketWrite', () => {
  it('grants now when the bucket is idle or unknown', () => {
    expect(planBucketWrite(undefined, 1000, 400, 5000)).toEqual({
      kind: 'idle',
      now: 1000,
      emissionMs: 400,
    });
    expect(planBucketWrite(1000, 1000, 400, 5000).kind).toBe('idle');
  });

  it('books the next start when it is within the horizon', () => {
    expect(planBucketWrite(6000, 1000, 400, 5000)).toEqual({
      kind: 'booked',
      now: 1000,
      emissionMs: 400,
      horizonMs: 5000,
    });
  });

  it('says how long until a start could be booked when it is further away', () => {
    expect(planBucketWrite(9000, 1000, 400, 5000)).toEqual({ kind: 'full', waitMs: 3000 });
    expect(planBucketWrite(1001, 1000, 400, 0)).toEqual({ kind: 'full', waitMs: 1 });
  });
});

describe('deferralMs', () => {
  it('waits at least until a start could be booked, plus a spread that doubles per receive', () => {
    expect(deferralMs(3000, 1, () => 0)).toBe(3000);
    expect(deferralMs(3000, 1, () => 1)).toBe(3000 + MAX_WAIT_IN_WORKER_MS);
    expect(deferralMs(3000, 3, () => 1)).toBe(3000 + 4 * MAX_WAIT_IN_WORKER_MS);
  });

  it('never exceeds SQS visibility ceiling of 12 hours', () => {
    expect(deferralMs(50_000_000, 40, () => 1)).toBe(43_200_000);
  });
});

describe('RateLimiter.admit', () => {
  const limited = defineTask('limited', {
    schema,
    handler,
    rateLimit: { limit: 5, intervalMs: 2000 },
  });

  it('writes nothing for a type without a limit', async () => {
    let writes = 0;
    const take = async (): Promise<BucketWriteResult> => {
      writes += 1;
      return { kind: 'refused', tat: undefined };
    };
    const limiter = new RateLimiter(
      { take },
      () => 0,
      () => 0,
    );

    const admission = await limiter.admit(defineTask('free', { schema, handler }), taskRecord(), {
      maxWaitMs: 1000,
      receiveCount: 1,
    });

    expect(admission).toEqual({ kind: 'go' });
    expect(writes).toBe(0);
  });

  it('never grants two starts closer than the emission interval, however takes interleave', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 5, maxLength: 40 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        async (workers, steps, seed) => {
          let state = seed;
          const random = () => {
            state = (state * 1103515245 + 12345) % 2 ** 31;
            return state / 2 ** 31;
          };
          const bucket = modelBucket(random);
          let now = 1_000_000;
          let step = 0;
          const clock = () => {
            now += steps[step++ % steps.length] ?? 0;
            return now;
          };
          const limiters = Array.from(
            { length: workers },
            () => new RateLimiter(bucket, clock, random, async () => undefined),
          );

          await Promise.all(
            steps.map((_, n) =>
              limiters[n % workers]?.admit(limited, taskRecord({ type: 'limited' }), {
                maxWaitMs: 5000,
                receiveCount: 1,
              }),
            ),
          );

          const sorted = [...bucket.grants].sort((a, b) => a - b);
          for (let i = 1; i < sorted.length; i++) {
            expect((sorted[i] as number) - (sorted[i - 1] as number)).toBeGreaterThanOrEqual(400);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
