import { describe, expect, it } from 'vitest';
import { Defaults } from '../../../src/core/constants.js';
import type { TaskWait } from '../../../src/core/record.js';
import {
  readableSignals,
  type SignalStore,
  type StoredSignal,
} from '../../../src/store/signals.js';
import { STEP_WINDOW, type StoredStep, windowMayContinue } from '../../../src/store/steps.js';
import { SignalReader, signalRead } from '../../../src/worker/durable-signals.js';
import { firstStepRead, StepReads } from '../../../src/worker/step-reads.js';

const sleep = (step: number, epoch = 0): TaskWait => ({ kind: 'sleep', step, name: 'nap', epoch });

describe('firstStepRead', () => {
  it('reads a full window when the record names no wait', () => {
    expect(firstStepRead({})).toBe(STEP_WINDOW);
    expect(firstStepRead({ stepEpoch: 2 })).toBe(STEP_WINDOW);
  });

  it("reads the positions before the wait, the wait's own and one after it", () => {
    expect(firstStepRead({ wait: sleep(0) })).toBe(2);
    expect(firstStepRead({ wait: sleep(1) })).toBe(3);
    expect(firstStepRead({ wait: sleep(7, 3), stepEpoch: 3 })).toBe(9);
  });

  it('never reads more than one BatchGetItem holds', () => {
    expect(firstStepRead({ wait: sleep(98) })).toBe(100);
    expect(firstStepRead({ wait: sleep(250) })).toBe(STEP_WINDOW);
  });

  it('keeps the full window for a wait of another step epoch, or a position that is none', () => {
    expect(firstStepRead({ wait: sleep(1, 0), stepEpoch: 1 })).toBe(STEP_WINDOW);
    expect(firstStepRead({ wait: sleep(-1) })).toBe(STEP_WINDOW);
    expect(firstStepRead({ wait: sleep(1.5) })).toBe(STEP_WINDOW);
  });
});

describe('windowMayContinue', () => {
  const window = (...at: number[]) => new Map(at.map((n) => [n, n]));

  it('goes on past a full window, and past one whose last or next-to-last position holds a step', () => {
    const full = window(...Array.from({ length: 100 }, (_, n) => n));
    expect(windowMayContinue(full, 0, 100)).toBe(true);
    // A gap (a step that threw, caught) early: 99 steps, the window may still continue.
    full.delete(5);
    expect(windowMayContinue(full, 0, 100)).toBe(true);
    expect(windowMayContinue(window(98), 0, 100)).toBe(true);
    expect(windowMayContinue(window(199), 100, 100)).toBe(true);
  });

  it('ends the steps when the last two positions are empty', () => {
    expect(windowMayContinue(window(), 0, 100)).toBe(false);
    expect(windowMayContinue(window(0, 1, 97), 0, 100)).toBe(false);
    expect(windowMayContinue(window(0), 0, 3)).toBe(false);
  });
});

describe('StepReads', () => {
  const step = (index: number, threw = false): StoredStep => ({
    index,
    name: `s${index}`,
    at: 0,
    attempt: 1,
    sizeBytes: 0,
    ...(threw ? { threw: true as const } : {}),
  });

  it("reads on past two thrown steps' markers at a window's end, to the steps after them", async () => {
    // Steps 0-102 stored but for 98 and 99, which threw and left their markers.
    const stored = new Map(Array.from({ length: 103 }, (_, n) => [n, step(n, n >= 98 && n <= 99)]));
    const reads: [number, number][] = [];
    const readWindow = async (from: number, count: number) => {
      reads.push([from, count]);
      const found = new Map<number, StoredStep>();
      for (let n = from; n < from + count; n++) {
        const at = stored.get(n);
        if (at !== undefined) found.set(n, at);
      }
      return found;
    };
    const steps = new StepReads(readWindow, true, STEP_WINDOW);

    expect((await steps.lookup(99))?.threw).toBe(true);
    expect((await steps.lookup(100))?.name).toBe('s100');
    expect(await steps.lookup(103)).toBeUndefined();
    expect(reads).toEqual([
      [0, 100],
      [100, 100],
    ]);
  });
});

describe('signalRead', () => {
  it('reads only the positions below the count, from the one asked', () => {
    expect(signalRead(0, 1)).toBe(1);
    expect(signalRead(0, 3)).toBe(3);
    expect(signalRead(2, 5)).toBe(3);
  });

  it('reads at least the position asked, and at most 100', () => {
    expect(signalRead(0, 0)).toBe(1);
    expect(signalRead(4, 2)).toBe(1);
    expect(signalRead(0, 1_000)).toBe(100);
    expect(signalRead(950, 1_000)).toBe(50);
  });
});

describe('SignalReader', () => {
  /**
   * A signal store that records the reads asked of it, over the signals given, and a head
   * counting `head` (none when undefined). The head is read with the positions asked.
   */
  function store(names: string[], head?: number) {
    const reads: [number, number][] = [];
    const found = (from: number, count: number) => {
      const signals = new Map<number, StoredSignal>();
      for (let seq = from; seq < from + count && seq < names.length; seq++) {
        signals.set(seq, { seq, name: names[seq] as string, at: 0 });
      }
      return signals;
    };
    const fake = {
      async window(_record: unknown, _epoch: number, from: number, count: number) {
        reads.push([from, count]);
        return found(from, count);
      },
      async windowAndHead(_record: unknown, _epoch: number, from: number, count: number) {
        reads.push([from, count]);
        const counted = head === undefined ? undefined : { epoch: 0, count: head, filed: false };
        return { signals: found(from, count), head: counted };
      },
    };
    return { reads, fake: fake as unknown as SignalStore };
  }
  const record = (signals?: number) => ({ id: 't', createdAt: 0, signals });
  const noFetch = async () => '';

  it('reads the head with the first signal not consumed, once, then what the head counts after it', async () => {
    const { reads, fake } = store(['a', 'b', 'a'], 3);
    const reader = new SignalReader(record(), 0, fake, noFetch);

    expect((await reader.first('a', new Set([0])))?.seq).toBe(2);
    expect((await reader.first('b', new Set()))?.seq).toBe(1);
    expect(reader.count).toBe(3);
    // The head and position 1 together (2 keys, not 100: a key without an item is a unit).
    expect(reads).toEqual([
      [1, 1],
      [2, 1],
      [0, 1],
    ]);
  });

  it("takes the larger of the record's count (an earlier version's) and the head's", async () => {
    const { fake } = store(['a', 'b'], 1);
    const reader = new SignalReader(record(2), 0, fake, noFetch);

    expect((await reader.first('b', new Set()))?.seq).toBe(1);
    expect(reader.count).toBe(2);
  });

  it('reads the head once when the task was sent no signal, and reads again once one is counted', async () => {
    const names: string[] = [];
    const { reads, fake } = store(names);
    const reader = new SignalReader(record(), 0, fake, noFetch);

    expect(await reader.first('go', new Set())).toBeUndefined();
    expect(reads).toEqual([[0, 1]]);
    names.push('go');
    reader.count = 1;
    expect((await reader.first('go', new Set()))?.seq).toBe(0);
    expect(reads).toEqual([
      [0, 1],
      [0, 1],
    ]);
  });

  it('stops reading at MAX_SIGNALS, whatever count the record or a refusal shows', async () => {
    const { reads, fake } = store([]);
    const reader = new SignalReader(record(Defaults.MAX_SIGNALS + 500), 0, fake, noFetch);

    expect(await reader.first('never', new Set())).toBeUndefined();
    reader.count = 10 * Defaults.MAX_SIGNALS;
    expect(await reader.first('never', new Set())).toBeUndefined();
    const read = reads.reduce((sum, [, count]) => sum + count, 0);
    expect(read).toBe(Defaults.MAX_SIGNALS);
    expect(Math.max(...reads.map(([from, count]) => from + count))).toBe(Defaults.MAX_SIGNALS);
  });

  it('caps the positions a count allows at MAX_SIGNALS, and a count below 0 at none', () => {
    expect(readableSignals(3)).toBe(3);
    expect(readableSignals(Defaults.MAX_SIGNALS)).toBe(Defaults.MAX_SIGNALS);
    expect(readableSignals(Defaults.MAX_SIGNALS + 1)).toBe(Defaults.MAX_SIGNALS);
    expect(readableSignals(-2)).toBe(0);
  });
});
