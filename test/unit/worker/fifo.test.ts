import { describe, expect, it } from 'vitest';
import { fifoBatchFailures, type GroupedMessage, groupMessages } from '../../../src/worker/fifo.js';

/** `m('a1', 'A')` is message a1 of group A; no group means a standard-queue message. */
function m(messageId: string, groupId?: string): GroupedMessage {
  return { messageId, groupId };
}

const ids = (messages: readonly GroupedMessage[]) => messages.map((x) => x.messageId);

describe('fifoBatchFailures', () => {
  it('reports nothing when nothing failed', () => {
    const batch = [m('a1', 'A'), m('b1', 'B'), m('a2', 'A'), m('s1')];

    expect(fifoBatchFailures(batch, new Set())).toEqual([]);
  });

  it('reports nothing for an empty batch', () => {
    expect(fifoBatchFailures([], new Set(['x']))).toEqual([]);
  });

  describe('in a single group of ten messages', () => {
    const batch = Array.from({ length: 10 }, (_, i) => m(`m${i}`, 'G'));

    for (let k = 0; k < 10; k++) {
      it(`reports message ${k} and every later one when message ${k} fails`, () => {
        const reported = fifoBatchFailures(batch, new Set([`m${k}`]));

        expect(reported).toEqual(ids(batch.slice(k)));
      });
    }

    it('reports from the first failure on when several messages fail', () => {
      expect(fifoBatchFailures(batch, new Set(['m7', 'm3']))).toEqual(ids(batch.slice(3)));
    });
  });

  it('holds back only the failing group when groups are interleaved', () => {
    const batch = [
      m('a1', 'A'),
      m('b1', 'B'),
      m('a2', 'A'),
      m('c1', 'C'),
      m('b2', 'B'),
      m('a3', 'A'),
      m('b3', 'B'),
      m('c2', 'C'),
    ];

    const reported = fifoBatchFailures(batch, new Set(['b2']));

    expect(reported).toEqual(['b2', 'b3']);
  });

  it('holds back each failing group independently, in batch order', () => {
    const batch = [m('a1', 'A'), m('b1', 'B'), m('a2', 'A'), m('b2', 'B'), m('c1', 'C')];

    expect(fifoBatchFailures(batch, new Set(['b1', 'a2']))).toEqual(['b1', 'a2', 'b2']);
  });

  it('does not hold back earlier messages of the failing group', () => {
    const batch = [m('a1', 'A'), m('a2', 'A'), m('a3', 'A')];

    expect(fifoBatchFailures(batch, new Set(['a3']))).toEqual(['a3']);
  });

  it('treats messages without a group (standard queue) as independent', () => {
    const batch = [m('s1'), m('s2'), m('s3'), m('s4')];

    const reported = fifoBatchFailures(batch, new Set(['s2']));

    expect(reported).toEqual(['s2']);
  });

  it('does not let an ungrouped failure hold back grouped messages, or the reverse', () => {
    const batch = [m('s1'), m('a1', 'A'), m('s2'), m('a2', 'A'), m('s3')];

    expect(fifoBatchFailures(batch, new Set(['s1', 'a1']))).toEqual(['s1', 'a1', 'a2']);
  });

  it('returns ids in batch order, not in the order failures were recorded', () => {
    const batch = [m('x', 'X'), m('y', 'Y'), m('z', 'Z')];

    expect(fifoBatchFailures(batch, new Set(['z', 'x', 'y']))).toEqual(['x', 'y', 'z']);
  });

  it('ignores failed ids that are not in the batch', () => {
    const batch = [m('a1', 'A')];

    expect(fifoBatchFailures(batch, new Set(['elsewhere']))).toEqual([]);
  });
});

describe('groupMessages', () => {
  it('returns no groups for an empty batch', () => {
    expect(groupMessages([])).toEqual([]);
  });

  it('keeps batch order inside each group', () => {
    const batch = [m('a1', 'A'), m('b1', 'B'), m('a2', 'A'), m('b2', 'B'), m('a3', 'A')];

    const groups = groupMessages(batch).map(ids);

    expect(groups).toEqual([
      ['a1', 'a2', 'a3'],
      ['b1', 'b2'],
    ]);
  });

  it('orders groups by their first message in the batch', () => {
    const batch = [m('c1', 'C'), m('a1', 'A'), m('c2', 'C'), m('b1', 'B')];

    expect(groupMessages(batch).map(ids)).toEqual([['c1', 'c2'], ['a1'], ['b1']]);
  });

  it('puts every message without a group in a group of its own', () => {
    const batch = [m('s1'), m('a1', 'A'), m('s2'), m('a2', 'A')];

    expect(groupMessages(batch).map(ids)).toEqual([['a1', 'a2'], ['s1'], ['s2']]);
  });

  it('loses and duplicates no message', () => {
    const batch = Array.from({ length: 10 }, (_, i) =>
      m(`m${i}`, i % 3 === 0 ? undefined : `G${i % 2}`),
    );

    const flattened = groupMessages(batch)
      .flat()
      .map((x) => x.messageId);

    expect([...flattened].sort()).toEqual(ids(batch).sort());
  });

  it('returns the same message objects it was given', () => {
    const first = { messageId: 'a1', groupId: 'A', extra: 42 };

    expect(groupMessages([first])[0]?.[0]).toBe(first);
  });
});
