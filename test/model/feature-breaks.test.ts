/**
 * Three command sequences of the feature model (./features.test.ts), written as a shrunk
 * counterexample would be, each the shortest that breaks a guarantee through a bug found in
 * review (R1, R2, R11): the model's own commands, drained and judged by its oracle. They
 * keep the oracle honest about these breaks whatever the random search reaches in its budget.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { Debounce, Enqueue, type FeatureCommand, SettleSchedule } from './enqueue-commands.js';
import { FeatureModel, type SlotPlan } from './feature-model.js';
import { drain, judge } from './feature-oracle.js';
import { FeatureSystem } from './feature-system.js';
import { Purge, RedriveKey } from './operator-commands.js';
import { Deliver, Tick } from './runtime-commands.js';

let real: FeatureSystem;
let runs = 0;

beforeAll(async () => {
  real = await FeatureSystem.create();
});

const plan = (p: Partial<SlotPlan>): SlotPlan => ({
  type: 'plain',
  key: undefined,
  fate: 'ok',
  parents: [],
  onParentDead: 'cancel',
  delayed: false,
  big: false,
  ...p,
});

async function violations(commands: readonly FeatureCommand[]): Promise<string[]> {
  runs += 1;
  real.reset(1000 + runs);
  const model = new FeatureModel();
  await fc.asyncModelRun(() => ({ model, real }), commands);
  await drain(model, real);
  return judge(model, real);
}

describe('the feature model judges', () => {
  it('a dependent of a delayed parent rolled back and enqueued again (R1)', async () => {
    const found = await violations([
      new Enqueue(0, plan({ delayed: true }), false, false, 'held-fail'),
      new Enqueue(1, plan({ parents: ['@t0'] }), false, false, 'ok'),
      new SettleSchedule(),
      new Enqueue(0, plan({}), false, false, 'ok'),
    ]);

    expect(found).toEqual([]);
  });

  it('a debounced enqueue after a parked key was redriven (R2)', async () => {
    const debounce = (fate: 'ok' | 'permanent') =>
      new Debounce(0, 'park', true, fate, false, false, false);
    const found = await violations([
      debounce('permanent'),
      new Tick(6_000),
      new Deliver('default', 1, undefined),
      new RedriveKey(0),
      debounce('ok'),
    ]);

    expect(found).toEqual([]);
  });

  it('a later task of a key whose parked task was purged, its send failed (R11)', async () => {
    const found = await violations([
      new Enqueue(0, plan({ type: 'park', key: '@k0', fate: 'permanent' }), false, false, 'ok'),
      new Deliver('default', 1, undefined),
      new Tick(2_000),
      new Purge(),
      new Enqueue(1, plan({ key: '@k0' }), false, true, 'ok'),
    ]);

    expect(found).toEqual([]);
  });
});
