import { describe, expect, it } from 'vitest';
import { mostInWindow, rateUse } from '../lib/rate-windows.js';

describe('rateUse', () => {
  it('counts starts per interval from the first and judges the whole ones after it', () => {
    const times = [0, 100, 900, 1000, 1500, 2100, 2200, 2300, 3050];

    const use = rateUse(times, 1000);

    expect(use.perInterval).toEqual([3, 2, 3, 1]);
    expect(use.leastAfterFirst).toBe(2);
    expect(use.perSecond).toBeCloseTo((8 * 1000) / 3050);
  });

  it('has no judged interval for a run shorter than three intervals', () => {
    expect(rateUse([0, 500, 1500], 1000).leastAfterFirst).toBeUndefined();
  });
});

describe('mostInWindow', () => {
  it('finds the busiest half-open window wherever it begins', () => {
    expect(mostInWindow([0, 400, 800, 1200, 1600, 2000], 2000)).toBe(5);
    expect(mostInWindow([0, 1999, 2000, 2001], 2000)).toBe(3);
    expect(mostInWindow([], 1000)).toBe(0);
  });
});
