import { describe, expect, it } from 'vitest';
import { formatRatio, pairedRatio, summarize } from '../lib/stats.js';

describe('summarize', () => {
  it('takes the middle value of an odd-sized sample, whatever the order', () => {
    expect(summarize([5, 1, 3, 9, 7])).toEqual({ median: 5, min: 1, max: 9, n: 5 });
  });

  it('averages the two middle values of an even-sized sample', () => {
    expect(summarize([4, 1, 3, 2]).median).toBe(2.5);
  });

  it('rejects an empty sample and non-finite values', () => {
    expect(() => summarize([])).toThrow(RangeError);
    expect(() => summarize([1, Number.NaN])).toThrow(RangeError);
    expect(() => summarize([1, Number.POSITIVE_INFINITY])).toThrow(RangeError);
  });
});

describe('pairedRatio', () => {
  it('divides repetition by repetition before summarizing', () => {
    // The medians are 20 and 10, but the per-repetition ratios are 1, 2 and 4.
    const tasklane = [10, 20, 40];
    const baseline = [10, 10, 10];

    const ratio = pairedRatio(tasklane, baseline);

    expect(ratio).toEqual({ median: 2, min: 1, max: 4, n: 3 });
  });

  it('rejects samples of different sizes', () => {
    expect(() => pairedRatio([1, 2], [1])).toThrow(RangeError);
  });
});

describe('formatRatio', () => {
  it('prints the median with min and max', () => {
    expect(formatRatio({ median: 1.234, min: 1.1, max: 1.5, n: 5 })).toBe('1.23× (1.10×–1.50×)');
  });
});
