import { describe, expect, it } from 'vitest';
import { ChunkGates } from '../../../src/client/chunk-gates.js';

/** Whether `promise` has settled once pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
}

describe('ChunkGates.earlierSendsSharing', () => {
  it('waits for an earlier chunk that shares a group until it is done', async () => {
    const gates = new ChunkGates(2);
    gates.written(0, new Set(['a', 'b']));

    const wait = gates.earlierSendsSharing(1, new Set(['b']));

    expect(await settled(wait)).toBe(false);
    gates.done(0);
    expect(await settled(wait)).toBe(true);
  });

  it('does not wait for an earlier chunk with other groups', async () => {
    const gates = new ChunkGates(2);
    gates.written(0, new Set(['a']));

    const wait = gates.earlierSendsSharing(1, new Set(['b']));

    expect(await settled(wait)).toBe(true);
  });

  it('waits to learn the groups of an earlier chunk whose writes have not landed', async () => {
    const gates = new ChunkGates(2);

    const wait = gates.earlierSendsSharing(1, new Set(['a']));

    expect(await settled(wait)).toBe(false);
    gates.written(0, new Set(['z']));
    expect(await settled(wait)).toBe(true);
  });

  it('lets a chunk that gave up before its writes landed release the later ones', async () => {
    const gates = new ChunkGates(3);
    gates.written(1, new Set(['a']));
    gates.done(1);

    const wait = gates.earlierSendsSharing(2, new Set(['a']));
    gates.done(0);

    expect(await settled(wait)).toBe(true);
  });
});
