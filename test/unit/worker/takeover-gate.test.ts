import { describe, expect, it } from 'vitest';
import { TakeoverGate } from '../../../src/worker/takeover-gate.js';

/** A phase body the test finishes by hand; it logs `start <name>` and `end <name>`. */
function phase(trace: string[], name: string) {
  let finish = (): void => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const run = async (): Promise<string> => {
    trace.push(`start ${name}`);
    await finished;
    trace.push(`end ${name}`);
    return name;
  };
  return { run, finish };
}

/** Lets every promise continuation that is ready run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('TakeoverGate', () => {
  it('runs fresh phases of several batches side by side', async () => {
    const gate = new TakeoverGate();
    const trace: string[] = [];
    const a = phase(trace, 'fresh a');
    const b = phase(trace, 'fresh b');

    const done = [gate.fresh(a.run), gate.fresh(b.run)];
    await settle();
    const startedTogether = [...trace];
    a.finish();
    b.finish();

    expect(startedTogether).toEqual(['start fresh a', 'start fresh b']);
    expect(await Promise.all(done)).toEqual(['fresh a', 'fresh b']);
  });

  it('starts a takeover only once the fresh phases running before it have ended', async () => {
    const gate = new TakeoverGate();
    const trace: string[] = [];
    const a = phase(trace, 'fresh a');
    const b = phase(trace, 'fresh b');
    const t = phase(trace, 'takeover');

    const done = [gate.fresh(a.run), gate.fresh(b.run), gate.takeover(t.run)];
    await settle();
    a.finish();
    await settle();
    const afterFirstEnded = [...trace];
    b.finish();
    await settle();
    t.finish();
    await Promise.all(done);

    expect(afterFirstEnded).toEqual(['start fresh a', 'start fresh b', 'end fresh a']);
    expect(trace.slice(3)).toEqual(['end fresh b', 'start takeover', 'end takeover']);
  });

  it('holds back fresh phases that arrive while a takeover waits or runs', async () => {
    const gate = new TakeoverGate();
    const trace: string[] = [];
    const before = phase(trace, 'fresh before');
    const t = phase(trace, 'takeover');
    const after = phase(trace, 'fresh after');

    const done = [gate.fresh(before.run), gate.takeover(t.run), gate.fresh(after.run)];
    await settle();
    before.finish();
    await settle();
    const duringTakeover = [...trace];
    t.finish();
    await settle();
    after.finish();
    await Promise.all(done);

    expect(duringTakeover).toEqual(['start fresh before', 'end fresh before', 'start takeover']);
    expect(trace.slice(3)).toEqual(['end takeover', 'start fresh after', 'end fresh after']);
  });

  it('runs the takeovers of two batches one after the other', async () => {
    const gate = new TakeoverGate();
    const trace: string[] = [];
    const first = phase(trace, 'takeover 1');
    const second = phase(trace, 'takeover 2');

    const done = [gate.takeover(first.run), gate.takeover(second.run)];
    await settle();
    const whileFirstRuns = [...trace];
    first.finish();
    await settle();
    second.finish();
    await Promise.all(done);

    expect(whileFirstRuns).toEqual(['start takeover 1']);
    expect(trace).toEqual([
      'start takeover 1',
      'end takeover 1',
      'start takeover 2',
      'end takeover 2',
    ]);
  });

  it('opens again after a phase throws', async () => {
    const gate = new TakeoverGate();
    const failing = () => Promise.reject(new Error('handler crashed'));

    const fresh = gate.fresh(failing);
    const takeover = gate.takeover(failing);
    const after = gate.takeover(async () => 'ran');

    await expect(fresh).rejects.toThrow('handler crashed');
    await expect(takeover).rejects.toThrow('handler crashed');
    expect(await after).toBe('ran');
  });
});
