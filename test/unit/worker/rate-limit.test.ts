import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ValidationError } from '../../../src/core/errors.js';
import type { BucketWrite, BucketWriteResult } from '../../../src/store/token-bucket.js';
import { bucketKey } from '../../../src/store/token-bucket.js';
import { defineTask } from '../../../src/tasks/task-definition.js';
import { deferralMs, planBucketWrite, RateLimiter } from '../../../src/worker/rate-limit.js';
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
 * A bucket that evaluates the writes' conditions as DynamoDB does (on the stored value,
 * atomically), yielding to other callers first so concurrent takes interleave.
 */
function modelBucket(random: () => number) {
  const items = new Map<string, { tat?: number; queueAt?: number }>();
  const grants: number[] = [];
  const places: number[] = [];
  let writes = 0;
  const take = async (key: string, write: BucketWrite): Promise<BucketWriteResult> => {
    for (let i = Math.floor(random() * 4); i > 0; i--) await Promise.resolve();
    writes += 1;
    const item = items.get(key) ?? {};
    const { tat, queueAt } = item;
    const T = write.emissionMs;
    const spaced = (first: number) => Array.from({ length: write.count }, (_, i) => first + i * T);
    if (write.kind === 'idle' && (tat === undefined || tat <= write.now)) {
      const next = write.now + write.count * T;
      items.set(key, { ...item, tat: next });
      grants.push(...spaced(write.now));
      return { kind: 'granted', slots: spaced(write.now), tat: next, queueAt };
    }
    if (write.kind === 'booked' && tat !== undefined && tat > write.now) {
      if (tat <= write.now + write.horizonMs - (write.count - 1) * T) {
        items.set(key, { ...item, tat: tat + write.count * T });
        grants.push(...spaced(tat));
        return { kind: 'granted', slots: spaced(tat), tat: tat + write.count * T, queueAt };
      }
    }
    if (write.kind !== 'idle' && write.kind !== 'booked' && tat !== undefined && tat > write.full) {
      const first = write.kind === 'queue-first' ? tat : queueAt;
      const open = queueAt === undefined || queueAt <= tat;
      if (first !== undefined && open === (write.kind === 'queue-first')) {
        items.set(key, { tat, queueAt: first + write.count * T });
        places.push(...spaced(first));
        return { kind: 'queued', places: spaced(first), tat, queueAt: first + write.count * T };
      }
    }
    return { kind: 'refused', tat, queueAt };
  };
  return {
    take,
    grants,
    places,
    get writes() {
      return writes;
    },
  };
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
  const unknown = { tat: undefined, queueAt: undefined };

  it('grants from now on when the bucket is idle or unknown, as many as the horizon holds', () => {
    expect(planBucketWrite(unknown, 1000, 400, 5000)).toEqual({
      kind: 'idle',
      now: 1000,
      emissionMs: 400,
      count: 1,
    });
    expect(planBucketWrite({ tat: 1000, queueAt: undefined }, 1000, 400, 5000, 20).count).toBe(13);
  });

  it('books the next starts when they are within the horizon', () => {
    expect(planBucketWrite({ tat: 6000, queueAt: undefined }, 1000, 400, 5000, 10)).toEqual({
      kind: 'booked',
      now: 1000,
      emissionMs: 400,
      horizonMs: 5000,
      count: 1,
    });
    expect(planBucketWrite({ tat: 2000, queueAt: undefined }, 1000, 400, 5000, 20).count).toBe(11);
  });

  it('takes places in the line when the next start is further away', () => {
    expect(planBucketWrite({ tat: 9000, queueAt: undefined }, 1000, 400, 5000, 3)).toEqual({
      kind: 'queue-first',
      full: 6000,
      emissionMs: 400,
      count: 3,
    });
    const lineAt = (queueAt: number) => ({ tat: 9000, queueAt });
    expect(planBucketWrite(lineAt(8000), 1000, 400, 5000).kind).toBe('queue-first');
    expect(planBucketWrite(lineAt(9400), 1000, 400, 5000).kind).toBe('queue-next');
    expect(planBucketWrite({ tat: 1001, queueAt: undefined }, 1000, 400, 0).kind).toBe(
      'queue-first',
    );
  });
});

describe('deferralMs', () => {
  it('hides the task until half the horizon before its place', () => {
    expect(deferralMs(10_000, 1000, 5000)).toBe(6500);
    expect(deferralMs(2000, 1000, 5000)).toBe(0);
  });

  it('never exceeds SQS visibility ceiling of 12 hours', () => {
    expect(deferralMs(50_000_000, 0, 5000)).toBe(43_200_000);
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
      return { kind: 'refused', tat: undefined, queueAt: undefined };
    };
    const limiter = new RateLimiter(
      { take },
      () => 0,
      () => 0,
    );

    const admission = await limiter.admit(defineTask('free', { schema, handler }), taskRecord(), {
      maxWaitMs: 1000,
    });

    expect(admission).toEqual({ kind: 'go' });
    expect(writes).toBe(0);
  });

  it("grants a batch's tasks of one bucket consecutive starts with one write", async () => {
    const bucket = modelBucket(() => 0);
    const limiter = new RateLimiter(
      bucket,
      () => 1_000_000,
      () => 0,
      async () => undefined,
    );

    const admissions = await Promise.all(
      Array.from({ length: 10 }, () =>
        limiter.admit(limited, taskRecord({ type: 'limited' }), { maxWaitMs: 5000 }),
      ),
    );

    expect(admissions.every((a) => a.kind === 'go')).toBe(true);
    expect(bucket.writes).toBe(1);
    expect(bucket.grants).toEqual(Array.from({ length: 10 }, (_, i) => 1_000_000 + i * 400));
  });

  it('gives the tasks a full bucket cannot start places one interval apart, each deferred until shortly before its place', async () => {
    const bucket = modelBucket(() => 0);
    const limiter = new RateLimiter(
      bucket,
      () => 1_000_000,
      () => 0,
      async () => undefined,
    );
    const admit = () =>
      limiter.admit(limited, taskRecord({ type: 'limited' }), { maxWaitMs: 5000 });
    await Promise.all(Array.from({ length: 13 }, admit));

    const deferred = await Promise.all(Array.from({ length: 4 }, admit));

    // 13 starts fill the 5 s horizon (0 … 4.8 s); the next start is at 5.2 s.
    expect(bucket.places).toEqual([1_005_200, 1_005_600, 1_006_000, 1_006_400]);
    expect(deferred.map((a) => (a.kind === 'defer' ? a.delayMs : -1))).toEqual([
      2700, 3100, 3500, 3900,
    ]);
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
