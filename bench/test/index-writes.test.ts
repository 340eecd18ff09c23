import { describe, expect, it } from 'vitest';
import {
  type IndexShape,
  indexEntry,
  indexWrites,
  statusOfPartition,
  tableWriteUnits,
} from '../lib/index-writes.js';

const ALL: IndexShape = {
  tableKey: ['pk'],
  indexKey: ['statusShard', 'statusAt'],
  projection: 'ALL',
  nonKeyAttributes: [],
};
const KEYS_ONLY: IndexShape = { ...ALL, projection: 'KEYS_ONLY' };

const big = 'x'.repeat(1500);
const pending = { pk: { S: 't1' }, statusShard: { S: 'PENDING#3' }, statusAt: { N: '1' } };
const running = { pk: { S: 't1' }, statusShard: { S: 'RUNNING#3' }, statusAt: { N: '2' } };
const unindexed = { pk: { S: 't1' }, status: { S: 'RUNNING' } };

describe('indexWrites', () => {
  it('puts an entry when a write adds the index key', () => {
    const writes = indexWrites(undefined, pending, ALL);

    expect(writes).toEqual([{ kind: 'put', partition: 'PENDING#3', units: 1 }]);
  });

  it('deletes the old entry and puts the new one when the key changes', () => {
    const writes = indexWrites(pending, running, ALL);

    expect(writes.map((w) => `${w.kind} ${w.partition}`)).toEqual([
      'delete PENDING#3',
      'put RUNNING#3',
    ]);
  });

  it('only deletes when a write removes the key: a sparse index', () => {
    const writes = indexWrites(pending, unindexed, ALL);

    expect(writes).toEqual([{ kind: 'delete', partition: 'PENDING#3', units: 1 }]);
  });

  it('costs nothing for an item that is in the index neither before nor after', () => {
    expect(indexWrites(unindexed, { ...unindexed, note: { S: 'x' } }, ALL)).toEqual([]);
  });

  it('updates the entry once when a projected attribute changes under the same key', () => {
    const writes = indexWrites(pending, { ...pending, note: { S: 'x' } }, ALL);

    expect(writes).toEqual([{ kind: 'update', partition: 'PENDING#3', units: 1 }]);
  });

  it('ignores changes to attributes a KEYS_ONLY index does not project', () => {
    expect(indexWrites(pending, { ...pending, note: { S: big } }, KEYS_ONLY)).toEqual([]);
  });

  it('prices an ALL entry at the whole item and a KEYS_ONLY entry at its keys', () => {
    const after = { ...running, payload: { S: big } };

    const all = indexWrites(pending, after, ALL);
    const keysOnly = indexWrites(pending, after, KEYS_ONLY);

    expect(all.map((w) => w.units)).toEqual([1, 2]);
    expect(keysOnly.map((w) => w.units)).toEqual([1, 1]);
    expect(indexEntry(after, KEYS_ONLY)).toEqual(running);
  });

  it('reads plain (document client) images as well as wire ones', () => {
    const writes = indexWrites(undefined, { pk: 't1', statusShard: 'DEAD#0', statusAt: 5 }, ALL);

    expect(writes).toEqual([{ kind: 'put', partition: 'DEAD#0', units: 1 }]);
  });
});

describe('tableWriteUnits', () => {
  it('charges the larger of the two images, at least one unit', () => {
    expect(tableWriteUnits(undefined, pending)).toBe(1);
    expect(tableWriteUnits({ ...pending, payload: { S: big } }, pending)).toBe(2);
    expect(tableWriteUnits(pending, undefined)).toBe(1);
  });
});

describe('statusOfPartition', () => {
  it('drops the shard suffix', () => {
    expect(statusOfPartition('SUCCEEDED#12')).toBe('SUCCEEDED');
    expect(statusOfPartition('parked')).toBe('parked');
  });
});
