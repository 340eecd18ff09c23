import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { isWireItem, itemSize, numberSize, readUnits, writeUnits } from '../lib/item-size.js';

const item = {
  pk: 'task-1',
  attempt: 2,
  done: true,
  history: [{ event: 'claimed', at: 1_700_000_000_000 }],
};

describe('itemSize', () => {
  it('measures strings in UTF-8 bytes, names included', () => {
    // "pk" (2) + "é" (2 bytes in UTF-8) + "x" (1)
    expect(itemSize({ pk: 'éx' })).toBe(5);
  });

  it('gives the same size to an item and its wire (marshalled) form', () => {
    const wire = marshall(item);

    expect(isWireItem(wire)).toBe(true);
    expect(isWireItem(item)).toBe(false);
    expect(itemSize(wire)).toBe(itemSize(item));
  });

  it('adds 3 bytes per list or map and 1 byte per element', () => {
    // "l" (1) + list overhead (3) + 2 × (1 + "ab" 2)
    expect(itemSize({ l: ['ab', 'ab'] })).toBe(10);
    // "m" (1) + map overhead (3) + "k" (1) + 1 + "v" (1)
    expect(itemSize({ m: { k: 'v' } })).toBe(7);
  });
});

describe('numberSize', () => {
  it('costs one byte per two significant digits, plus one', () => {
    expect(numberSize('7')).toBe(2);
    expect(numberSize('1234')).toBe(3);
    expect(numberSize('1764470000123')).toBe(8);
  });

  it('trims leading and trailing zeros and ignores sign and point', () => {
    expect(numberSize('-12.50')).toBe(3);
    expect(numberSize('1700000000000')).toBe(2);
    expect(numberSize('0.0042')).toBe(2);
  });
});

describe('capacity units', () => {
  it('charges one write unit per started KB, at least one', () => {
    expect(writeUnits(0)).toBe(1);
    expect(writeUnits(1024)).toBe(1);
    expect(writeUnits(1025)).toBe(2);
  });

  it('charges one read unit per started 4 KB, half for eventual consistency', () => {
    expect(readUnits(4096, true)).toBe(1);
    expect(readUnits(4097, true)).toBe(2);
    expect(readUnits(100, false)).toBe(0.5);
  });
});
