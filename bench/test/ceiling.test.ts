import { describe, expect, it } from 'vitest';
import { busiestStatus, executorCeiling } from '../lib/ceiling.js';

describe('executorCeiling', () => {
  it('gives 4,000 tasks/s at 8 shards for a put and a delete of 1 unit per task', () => {
    expect(executorCeiling(8, 2, 1)).toBe(4000);
  });

  it('gives 800 tasks/s at 8 shards when each index write is 5 units (a 4 KB record)', () => {
    expect(executorCeiling(8, 2, 5)).toBe(800);
  });

  it('grows with the shard count: 16,000 tasks/s at 32 shards for 2 units per task', () => {
    expect(executorCeiling(32, 2, 1)).toBe(16_000);
  });

  it('is unbounded when no index write is made', () => {
    expect(executorCeiling(8, 0, 1)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('busiestStatus', () => {
  it('sums the shards of each status and picks the one with the most units per task', () => {
    const units = { 'PENDING#0': 10, 'PENDING#1': 10, 'SUCCEEDED#0': 20, 'SUCCEEDED#1': 20 };
    const writes = { 'PENDING#0': 10, 'PENDING#1': 10, 'SUCCEEDED#0': 5, 'SUCCEEDED#1': 5 };

    const load = busiestStatus(units, writes, 10);

    expect(load).toEqual({ status: 'SUCCEEDED', writesPerTask: 1, unitsPerWrite: 4 });
  });

  it('is undefined when nothing was written', () => {
    expect(busiestStatus({}, {}, 10)).toBeUndefined();
  });
});
