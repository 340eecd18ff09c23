/** A feature made on first use (src/worker/on-first-use.ts). */
import { describe, expect, it } from 'vitest';
import { onFirstUse } from '../../../src/worker/on-first-use.js';

class Counter {
  readonly calls: string[] = [];
  async add(name: string): Promise<number> {
    this.calls.push(name);
    return this.calls.length;
  }
  async reset(): Promise<void> {
    this.calls.length = 0;
  }
}

describe('onFirstUse', () => {
  it('makes nothing until a method is called, then makes it once', async () => {
    let made = 0;
    const counter = new Counter();
    const lazy = onFirstUse(async () => {
      made += 1;
      return counter;
    }, ['add', 'reset']);

    expect(made).toBe(0);
    const results = await Promise.all([lazy.add('a'), lazy.add('b'), lazy.add('c')]);
    await lazy.add('d');

    expect(made).toBe(1);
    expect(results).toEqual([1, 2, 3]);
    expect(counter.calls).toEqual(['a', 'b', 'c', 'd']);
  });

  it('keeps the calls in the order they were made while it loads', async () => {
    const counter = new Counter();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const lazy = onFirstUse(async () => {
      await gate;
      return counter;
    }, ['add', 'reset']);

    const pending = [lazy.add('first'), lazy.reset(), lazy.add('second')];
    release();
    await Promise.all(pending);

    expect(counter.calls).toEqual(['second']);
  });

  it('fails the calls of a failed load and loads again at the next call', async () => {
    let attempts = 0;
    const lazy = onFirstUse(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('chunk unreadable');
      return new Counter();
    }, ['add']);

    await expect(lazy.add('a')).rejects.toThrow('chunk unreadable');
    await expect(lazy.add('b')).resolves.toBe(1);
    expect(attempts).toBe(2);
  });
});
