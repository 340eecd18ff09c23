import { describe, expect, it } from 'vitest';
import type { TaskWait } from '../../../src/core/record.js';
import { STEP_WINDOW } from '../../../src/store/steps.js';
import { firstStepRead } from '../../../src/worker/durable-run.js';
import { signalRead } from '../../../src/worker/durable-signals.js';

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
