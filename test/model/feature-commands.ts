/**
 * The feature model's command generators: fast-check `fc.commands` over every command of
 * ./enqueue-commands.ts, ./operator-commands.ts and ./runtime-commands.ts, weighted so that
 * the steps a feature needs (a task enqueued, delivered, dead, redriven …) come often enough
 * in 40 commands over 3 ids, 2 ordering keys and 2 debounce keys.
 */
import fc from 'fast-check';
import {
  Debounce,
  Enqueue,
  type FeatureCommand,
  type ScheduleFault,
  SettleSchedule,
} from './enqueue-commands.js';
import type { SlotPlan } from './feature-model.js';
import type { Fate, TypeName } from './feature-system.js';
import { LEASE_EXPIRY_MS } from './feature-system.js';
import { Cancel, Purge, RedriveIds, RedriveKey, ReleaseKey } from './operator-commands.js';
import { Deliver, Outage, PARK_HOLD_EXPIRY_MS, Pump, Sweep, Tick } from './runtime-commands.js';

/** Longest command sequence generated. */
export const FEATURE_MAX_COMMANDS = 40;
/** Explicit ids t0…t2; ordering keys and debounce keys k0, k1 (one namespace). */
export const SLOTS = 3;
const KEYS = 2;
const DEBOUNCE_MODES: readonly ('last' | 'first')[] = ['last', 'first'];

const fate: fc.Arbitrary<Fate> = fc.constantFrom<Fate>(
  'ok',
  'ok',
  'ok',
  'retry',
  'fail',
  'permanent',
);
const slot = fc.integer({ min: 0, max: SLOTS - 1 });
const keyIndex = fc.integer({ min: 0, max: KEYS - 1 });
const type = fc.constantFrom<TypeName>('plain', 'park', 'park', 'bulk');
const rarely = fc.oneof(
  { arbitrary: fc.constant(false), weight: 3 },
  { arbitrary: fc.constant(true), weight: 1 },
);

/** Explicit-id plans; `key` is filled by the system (the run's key names) at run time. */
function plans(keys: (n: number) => string, ids: (n: number) => string): fc.Arbitrary<SlotPlan> {
  const plain = fc.record({ type, key: fc.option(keyIndex, { freq: 3 }), fate, big: rarely }).map(
    ({ type, key, fate, big }): SlotPlan => ({
      type,
      key: key === null ? undefined : keys(key),
      fate,
      parents: [],
      onParentDead: 'cancel',
      delayed: false,
      big,
    }),
  );
  const dependent = fc
    .record({
      type: fc.constantFrom<TypeName>('plain', 'bulk'),
      parents: fc.uniqueArray(slot, { minLength: 1, maxLength: 2 }),
      onParentDead: fc.constantFrom<'cancel' | 'run'>('cancel', 'run'),
      fate,
      big: rarely,
    })
    .map((p): SlotPlan => ({ ...p, parents: p.parents.map(ids), key: undefined, delayed: false }));
  const delayed = fc
    .record({ type: fc.constantFrom<TypeName>('plain', 'bulk'), fate, big: rarely })
    .map(
      (p): SlotPlan => ({
        ...p,
        key: undefined,
        parents: [],
        onParentDead: 'cancel',
        delayed: true,
      }),
    );
  return fc.oneof(
    { arbitrary: plain, weight: 3 },
    { arbitrary: dependent, weight: 2 },
    { arbitrary: delayed, weight: 2 },
  );
}

/**
 * The command generators. `keys` and `ids` name the run's keys and ids; they are read when a
 * command is generated, so they must not depend on the run (the system's names do: they are
 * resolved again at run time from the slot numbers).
 */
export function featureCommands(): fc.Arbitrary<Iterable<FeatureCommand>> {
  // Plans name keys and parents by slot; the real names come from the system at run time.
  const plan = plans(
    (n) => `@k${n}`,
    (n) => `@t${n}`,
  );
  const schedule = fc.constantFrom<ScheduleFault>(
    'ok',
    'fail',
    'held-ok',
    'held-fail',
    'held-fail',
  );
  const enqueue = fc
    .record({ slot, plan, narrow: rarely, sendFails: rarely, schedule })
    .map(
      ({ slot, plan, narrow, sendFails, schedule }) =>
        new Enqueue(slot, plan, narrow, sendFails, schedule),
    );
  const debounce = fc
    .record({
      dkey: keyIndex,
      type,
      keyed: fc.oneof(
        { arbitrary: fc.constant(true), weight: 3 },
        { arbitrary: fc.constant(false), weight: 1 },
      ),
      fate,
      narrow: rarely,
      sendFails: rarely,
      big: rarely,
    })
    .map(
      // One mode per key (k0 'last', k1 'first'): what a fold of the other mode into a task
      // does is not specified.
      (d) =>
        new Debounce(
          d.dkey,
          DEBOUNCE_MODES[d.dkey] ?? 'last',
          d.type,
          d.keyed,
          d.fate,
          d.narrow,
          d.sendFails,
          d.big,
        ),
    );
  const lane = fc.constantFrom('default', 'default', 'bulk');
  const deliver = fc
    .record({
      lane,
      max: fc.integer({ min: 1, max: 3 }),
      dieAfter: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 3 },
        { arbitrary: fc.integer({ min: 0, max: 5 }), weight: 1 },
      ),
    })
    .map(({ lane, max, dieAfter }) => new Deliver(lane, max, dieAfter));
  const tick = fc.oneof(
    { arbitrary: fc.integer({ min: 1_000, max: 6_000 }), weight: 3 },
    { arbitrary: fc.constant(LEASE_EXPIRY_MS), weight: 2 },
    { arbitrary: fc.constant(PARK_HOLD_EXPIRY_MS), weight: 1 },
  );
  return fc.commands(
    [
      enqueue,
      enqueue,
      enqueue,
      debounce,
      debounce,
      fc.constant(new SettleSchedule()),
      deliver,
      deliver,
      deliver,
      deliver,
      tick.map((ms) => new Tick(ms)),
      tick.map((ms) => new Tick(ms)),
      fc.constant(new Sweep()),
      fc.constant(new Pump()),
      slot.map((s) => new Cancel(s)),
      slot.map((s) => new RedriveIds(s)),
      keyIndex.map((k) => new RedriveKey(k)),
      keyIndex.map((k) => new RedriveKey(k)),
      keyIndex.map((k) => new ReleaseKey(k)),
      fc.constant(new Purge()),
      fc.constant(new Purge()),
      fc
        .tuple(fc.constantFrom<'s3' | 'events'>('s3', 'events'), fc.boolean())
        .map(([service, on]) => new Outage(service, on)),
    ],
    { maxCommands: FEATURE_MAX_COMMANDS, size: 'max' },
  );
}
