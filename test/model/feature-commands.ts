/**
 * The feature model's command generators: sequences of 60-80 commands of
 * ./enqueue-commands.ts, ./operator-commands.ts and ./runtime-commands.ts over 3 shared ids,
 * 13 ids the aimed enqueues take in turn, 2 ordering keys (and a key of its own for a task
 * aimed to park one) and 2 debounce keys, weighted so that the steps a meeting of features
 * needs (a task enqueued, delivered, dead, redriven, purged, a held schedule answered …) come
 * often enough.
 */
import fc from 'fast-check';
import {
  Debounce,
  Enqueue,
  type EnqueueAim,
  type FeatureCommand,
  type ScheduleFault,
  SettleSchedule,
} from './enqueue-commands.js';
import type { SlotPlan } from './feature-model.js';
import type { Fate, TypeName } from './feature-system.js';
import { FEATURE_SLOTS, LEASE_EXPIRY_MS, SHARED_SLOTS } from './feature-system.js';
import {
  Cancel,
  PauseKey,
  Purge,
  RedriveIds,
  RedriveKey,
  ReleaseKey,
  ResumeKey,
} from './operator-commands.js';
import { Deliver, Outage, PARK_HOLD_EXPIRY_MS, Pump, Sweep, Tick } from './runtime-commands.js';

/**
 * Longest command sequence generated. A sequence's drain costs more than its commands (each
 * about 60 ms on the emulator), so long sequences, with room for the several steps a
 * meeting of features takes, find more per second than many short ones.
 */
export const FEATURE_MAX_COMMANDS = 80;
/** Fewest commands in a sequence: a meeting of features takes a few steps to set up. */
export const FEATURE_MIN_COMMANDS = 60;
/** Explicit ids t0…t15 (./feature-system.ts); ordering keys and debounce keys k0, k1 (one namespace). */
export const SLOTS = FEATURE_SLOTS;
const KEYS = 2;

/** Weighted choice among constants. */
function weighted<T>(...choices: readonly (readonly [T, number])[]): fc.Arbitrary<T> {
  return fc.oneof(...choices.map(([value, weight]) => ({ arbitrary: fc.constant(value), weight })));
}

// Tasks that die come often enough for parked keys, redrive and purge to meet other features.
const fate: fc.Arbitrary<Fate> = weighted<Fate>(
  ['ok', 3],
  ['retry', 1],
  ['fail', 1],
  ['permanent', 2],
);
const slot = fc.integer({ min: 0, max: SHARED_SLOTS - 1 });
const keyIndex = fc.integer({ min: 0, max: KEYS - 1 });
const type = weighted<TypeName>(['plain', 1], ['park', 2], ['bulk', 1]);
const rarely = weighted([false, 3], [true, 1]);
const sometimes = weighted([false, 2], [true, 1]);

/**
 * A plan's ordering key: `k<n>`, or aimed at the key of the task a purge deleted last
 * (`@p<n>`, else `k<n>`), so that a key's later task meets a parked task's purge.
 */
const keyRef = fc.tuple(keyIndex, sometimes).map(([n, aimed]) => `${aimed ? '@p' : '@k'}${n}`);
/**
 * A dependent's parent: `t<n>`, or aimed at the id waiting on a held CreateSchedule (`@h<n>`,
 * else `t<n>`), so that dependents register on delayed parents whose enqueue may still fail.
 */
const parentRef = fc.tuple(slot, fc.boolean()).map(([n, aimed]) => `${aimed ? '@h' : '@t'}${n}`);

const delayedPlan: fc.Arbitrary<SlotPlan> = fc
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

/** Explicit-id plans; keys and parents are references the system resolves at run time. */
function plans(): fc.Arbitrary<SlotPlan> {
  const plain = fc.record({ type, key: fc.option(keyRef, { freq: 3 }), fate, big: rarely }).map(
    ({ type, key, fate, big }): SlotPlan => ({
      type,
      key: key ?? undefined,
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
      parents: fc.uniqueArray(parentRef, { minLength: 1, maxLength: 2 }),
      onParentDead: fc.constantFrom<'cancel' | 'run'>('cancel', 'run'),
      fate,
      big: rarely,
    })
    .map((p): SlotPlan => ({ ...p, key: undefined, delayed: false }));
  return fc.oneof(
    { arbitrary: plain, weight: 3 },
    { arbitrary: dependent, weight: 2 },
    { arbitrary: delayedPlan, weight: 2 },
  );
}

/**
 * The command generators. Besides the uniform choices over 3 ids and 2 keys, some commands are
 * aimed at what the sequence did so far (resolved when they run, so shrinking keeps them
 * meaningful): an enqueue of the id rolled back last, a dependent of the parent whose
 * CreateSchedule is held, a key's task after a purge of that key's task, a debounced enqueue
 * of the last debounced key and type, a redrive of the key a delivery saw a task park last,
 * and a debounced enqueue of the task that redrive put back in place, before it reruns. Each
 * is the second half of a meeting of two features that a uniform choice reaches too rarely.
 */
export function featureCommands(): fc.Arbitrary<Iterable<FeatureCommand>> {
  const plan = plans();
  const schedule = weighted<ScheduleFault>(
    ['ok', 1],
    ['fail', 1],
    ['held-ok', 1],
    ['held-fail', 3],
  );
  const enqueueAimed = (aim: EnqueueAim, plan: fc.Arbitrary<SlotPlan>, sends = sometimes) =>
    fc
      .record({ slot, plan, narrow: rarely, sendFails: sends, schedule })
      .map(
        ({ slot, plan, narrow, sendFails, schedule }) =>
          new Enqueue(slot, plan, narrow, sendFails, schedule, aim),
      );
  const enqueue = enqueueAimed('slot', plan);
  // The aimed enqueues, each the second half of a meeting the uniform ones reach too rarely:
  // a delayed parent whose CreateSchedule is held, a dependent registering on it meanwhile,
  // the rolled-back id enqueued again, a key's next task (often unsent) after a purge.
  const heldParent = fc
    .record({
      slot,
      plan: delayedPlan,
      schedule: weighted<ScheduleFault>(['held-fail', 3], ['held-ok', 1]),
    })
    .map(({ slot, plan, schedule }) => new Enqueue(slot, plan, false, false, schedule, 'fresh'));
  const dependentOfHeld = enqueueAimed(
    'fresh',
    fc
      .record({
        type: fc.constantFrom<TypeName>('plain', 'bulk'),
        other: fc.option(parentRef, { freq: 2 }),
        onParentDead: fc.constantFrom<'cancel' | 'run'>('cancel', 'run'),
        fate,
        big: rarely,
      })
      .map(
        ({ other, ...p }): SlotPlan => ({
          ...p,
          parents: other === null ? ['@h0'] : ['@h0', other],
          key: undefined,
          delayed: false,
        }),
      ),
    rarely,
  );
  const enqueueAgain = enqueueAimed('again', plan);
  // A task that parks its key: a park-type task of a key that dies (purged, redriven, released
  // after), as a plain enqueue and as a debounced one. Its key is mostly one of its own (`@o`):
  // on k0 or k1, the many other tasks of those keys would mostly park them again soon after,
  // so what a purge or a release of its park leaves behind would rarely be seen alone.
  const ownKey = weighted(['@o0', 2], ['@k0', 1], ['@k1', 1]);
  const parking = enqueueAimed(
    'fresh',
    fc
      .record({ key: ownKey, fate: weighted<Fate>(['permanent', 3], ['fail', 1]), big: rarely })
      .map(
        ({ key, fate, big }): SlotPlan => ({
          type: 'park',
          key,
          fate,
          big,
          parents: [],
          onParentDead: 'cancel',
          delayed: false,
        }),
      ),
    rarely,
  );
  const parkingDebounce = fc
    .record({ dkey: keyIndex, big: rarely })
    .map(({ dkey, big }) => new Debounce(dkey, 'park', true, 'permanent', false, false, big));
  const afterPurge = enqueueAimed(
    'fresh',
    fc.record({ type: weighted<TypeName>(['plain', 1], ['park', 1]), fate, big: rarely }).map(
      (p): SlotPlan => ({
        ...p,
        key: '@p0',
        parents: [],
        onParentDead: 'cancel',
        delayed: false,
      }),
    ),
    weighted([true, 2], [false, 1]),
  );
  const debounce = fc
    .record({
      dkey: keyIndex,
      type,
      keyed: weighted([true, 3], [false, 1]),
      fate,
      narrow: rarely,
      sendFails: rarely,
      big: rarely,
    })
    .map((d) => new Debounce(d.dkey, d.type, d.keyed, d.fate, d.narrow, d.sendFails, d.big));
  const debounceAimed = (aim: 'last' | 'redriven') =>
    fc
      .record({ keyed: weighted([true, 3], [false, 1]), fate, big: rarely })
      .map(({ keyed, fate, big }) => new Debounce(0, 'plain', keyed, fate, false, false, big, aim));
  const lane = fc.constantFrom('default', 'default', 'bulk');
  const deliver = (dies: boolean) =>
    fc
      .record({
        lane,
        max: fc.integer({ min: 1, max: 3 }),
        dieAfter: dies ? fc.integer({ min: 0, max: 5 }) : fc.constant(undefined),
      })
      .map(({ lane, max, dieAfter }) => new Deliver(lane, max, dieAfter));
  const tick = fc.oneof(
    { arbitrary: fc.integer({ min: 1_000, max: 6_000 }), weight: 4 },
    { arbitrary: fc.constant(LEASE_EXPIRY_MS), weight: 2 },
    { arbitrary: fc.constant(PARK_HOLD_EXPIRY_MS), weight: 1 },
  );
  const settle = fc.constant(new SettleSchedule());
  const outage = fc
    .tuple(fc.constantFrom<'s3' | 'events'>('s3', 'events'), fc.boolean())
    .map(([service, on]) => new Outage(service, on));
  // The weights: the aimed commands and the steps their meetings need come often; an aimed
  // command whose target does not exist yet is skipped (its check), so a high weight costs
  // little while it cannot run, and it runs soon once it can (a redrive of the key a task
  // just parked, a debounce of the task that redrive put back, a dependent of a held parent).
  const weightedCommands: [fc.Arbitrary<FeatureCommand>, number][] = [
    [enqueue, 2],
    [heldParent, 4],
    [dependentOfHeld, 8],
    [settle, 4],
    [enqueueAgain, 5],
    [parking, 4],
    [afterPurge, 6],
    [debounce, 1],
    [parkingDebounce, 5],
    [debounceAimed('last'), 2],
    [debounceAimed('redriven'), 16],
    [deliver(false), 12],
    [deliver(true), 4],
    [tick.map((ms) => new Tick(ms)), 8],
    [fc.constant(new Sweep()), 1],
    [fc.constant(new Pump()), 1],
    [slot.map((s) => new Cancel(s)), 1],
    [slot.map((s) => new RedriveIds(s)), 1],
    [keyIndex.map((k) => new RedriveKey(k)), 1],
    [keyIndex.map((k) => new RedriveKey(k, true)), 8],
    [keyIndex.map((k) => new ReleaseKey(k)), 1],
    [keyIndex.map((k) => new PauseKey(k)), 2],
    [keyIndex.map((k) => new ResumeKey(k)), 2],
    [fc.constant(new Purge()), 8],
    [outage, 1],
  ];
  const command = fc.oneof(
    ...weightedCommands.map(([arbitrary, weight]) => ({ arbitrary, weight })),
  );
  // A plain array rather than fc.commands: it keeps every sequence at least
  // FEATURE_MIN_COMMANDS long; an aimed command whose target does not exist yet is skipped
  // (its check), as fc.commands would.
  return fc.array(command, { minLength: FEATURE_MIN_COMMANDS, maxLength: FEATURE_MAX_COMMANDS });
}
