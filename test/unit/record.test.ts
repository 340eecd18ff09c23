import { describe, expect, it } from 'vitest';
import { canonicalJson, payloadHash } from '../../src/store/record.js';

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
});
