import { encodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  compareEnqueueOrder,
  MAX_PAYLOAD_DEPTH,
  payloadHash,
} from '../../../src/store/record.js';
import { taskRecord } from '../../helpers/task-record.js';

describe('canonicalJson', () => {
  it('keeps an own "__proto__" key instead of dropping it', () => {
    // JSON.parse creates "__proto__" as an own key, as a producer's payload may hold it.
    const payload = JSON.parse('{"b":1,"__proto__":{"polluted":true}}') as unknown;

    const json = canonicalJson(payload);

    expect(json).toBe('{"__proto__":{"polluted":true},"b":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('hashes payloads that differ only in a "__proto__" key differently', () => {
    const a = canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":1}}'));
    const b = canonicalJson(JSON.parse('{"b":1}'));

    expect(payloadHash('t', a)).not.toBe(payloadHash('t', b));
  });

  it('serialises a value nested exactly to the cap', () => {
    const value = nested(MAX_PAYLOAD_DEPTH);

    expect(canonicalJson(value)).toBe(
      `${'['.repeat(MAX_PAYLOAD_DEPTH)}${']'.repeat(MAX_PAYLOAD_DEPTH)}`,
    );
  });

  it('refuses a value one level deeper than the cap with a RangeError naming the cap', () => {
    expect(() => canonicalJson(nested(MAX_PAYLOAD_DEPTH + 1))).toThrow(
      new RangeError(`nested deeper than ${MAX_PAYLOAD_DEPTH} levels of arrays and objects`),
    );
  });

  it('refuses 100,000 levels without overflowing the stack', () => {
    const value = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;

    expect(() => canonicalJson(value)).toThrow(/nested deeper than/);
  });

  it('counts the depth of what toJSON returns, as JSON.stringify does', () => {
    const value = { toJSON: () => nested(MAX_PAYLOAD_DEPTH + 1) };

    expect(() => canonicalJson(value)).toThrow(RangeError);
  });

  it('still serialises a shared (not cyclic) object twice', () => {
    const shared = { a: 1 };

    expect(canonicalJson({ x: shared, y: shared })).toBe('{"x":{"a":1},"y":{"a":1}}');
  });
});

function nested(depth: number): unknown {
  let value: unknown[] = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

describe('compareEnqueueOrder', () => {
  const at = (ms: number) => `${encodeTime(ms, 10)}0000000000000000`;

  it('orders by sequence, even against the creation times of a concurrently written batch', () => {
    // The second entry of a batch was written first.
    const first = taskRecord({
      id: 'b',
      sequence: `${encodeTime(1_000, 10)}AAAAAAAAAAAAAAAA`,
      createdAt: 1_005,
    });
    const second = taskRecord({
      id: 'a',
      sequence: `${encodeTime(1_000, 10)}AAAAAAAAAAAAAAAB`,
      createdAt: 1_001,
    });

    expect([second, first].sort(compareEnqueueOrder).map((r) => r.id)).toEqual(['b', 'a']);
  });

  it('places a task without a sequence by its creation time, then breaks ties by id', () => {
    const early = taskRecord({ id: 'firing', sequence: undefined, createdAt: 500 });
    const sequenced = taskRecord({ id: 'x', sequence: at(1_000), createdAt: 1_000 });
    const late = taskRecord({ id: 'late-firing', sequence: undefined, createdAt: 2_000 });
    const twinA = taskRecord({ id: 'twin-a', sequence: undefined, createdAt: 3_000 });
    const twinB = taskRecord({ id: 'twin-b', sequence: undefined, createdAt: 3_000 });

    const sorted = [twinB, late, sequenced, twinA, early].sort(compareEnqueueOrder);

    expect(sorted.map((r) => r.id)).toEqual(['firing', 'x', 'late-firing', 'twin-a', 'twin-b']);
  });

  it('sorts a record with a corrupt creation time first instead of throwing', () => {
    const corrupt = taskRecord({ id: 'corrupt', sequence: undefined, createdAt: Number.NaN });
    const fine = taskRecord({ id: 'fine', sequence: undefined, createdAt: 1_000 });

    expect([fine, corrupt].sort(compareEnqueueOrder).map((r) => r.id)).toEqual(['corrupt', 'fine']);
  });
});
