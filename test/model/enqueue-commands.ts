/**
 * The feature model's producer commands: an enqueue by id (plain or keyed, in either lane,
 * claim-checked or not, a dependent with either `onParentDead`, or delayed through a one-time
 * schedule whose CreateSchedule may fail or be held while other commands run), a debounced
 * enqueue in either mode, and the answer of a held CreateSchedule. Each one records what the
 * producer was told and checks what it can at once.
 */
import type fc from 'fast-check';
import type { EnqueueResult } from '../../src/client/enqueue.js';
import type { EnqueueOptions } from '../../src/client/prepare.js';
import { AuditEvent } from '../../src/core/constants.js';
import { ScheduleFailedError, TasklaneError } from '../../src/core/errors.js';
import type { FeatureModel, SlotPlan } from './feature-model.js';
import {
  DELAY_MS,
  type Fate,
  type FeatureSystem,
  type ModelPayload,
  SHARED_SLOTS,
  type TypeName,
  WINDOW_MS,
} from './feature-system.js';
import { SCHEDULE_FAULT } from './model-faults.js';

export type FeatureCommand = fc.AsyncCommand<FeatureModel, FeatureSystem>;

/** Tally of the commands run, for the report. */
export const featureTally = new Map<string, number>();
export const count = (name: string) => featureTally.set(name, (featureTally.get(name) ?? 0) + 1);

/** What the next CreateSchedule of a delayed enqueue does. */
export type ScheduleFault = 'ok' | 'fail' | 'held-ok' | 'held-fail';

/** A padded payload is larger than the claim-check threshold: it goes to the payload bucket. */
const PAD = 'x'.repeat(96);

function payload(n: number, fate: Fate, big: boolean): ModelPayload {
  return big ? { n, fate, pad: PAD } : { n, fate };
}

type Outcome =
  | { readonly ok: true; readonly result: EnqueueResult }
  | { readonly ok: false; readonly error: unknown };

async function attempt(call: () => Promise<EnqueueResult>): Promise<Outcome> {
  try {
    return { ok: true, result: await call() };
  } catch (error) {
    return { ok: false, error };
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const problem = (error as { problem?: string }).problem;
    return `${error.name}${problem === undefined ? '' : `(${problem})`}`;
  }
  return String(error);
}

/** How an {@link Enqueue} picks its id. */
export type EnqueueAim = 'slot' | 'again' | 'fresh';

/** The first aimed slot no enqueue has planned (or whose plan a rollback forgot). */
function freshSlot(m: Readonly<FeatureModel>): number | undefined {
  for (let slot = SHARED_SLOTS; slot < m.slots; slot++) if (!m.plans.has(slot)) return slot;
  return undefined;
}

/** An enqueue with an explicit id: its plan is fixed by the id's first enqueue. */
export class Enqueue implements FeatureCommand {
  constructor(
    readonly slot: number,
    readonly plan: SlotPlan,
    readonly narrow: boolean,
    readonly sendFails: boolean,
    readonly schedule: ScheduleFault,
    /**
     * Which id: `slot`'s; `again`, the id an enqueue rolled back last; `fresh`, the first id
     * no enqueue has planned yet (so that its plan, with its aimed references, is used).
     */
    readonly aim: EnqueueAim = 'slot',
  ) {}

  /** An aimed enqueue waits until what it aims at exists. */
  check = (m: Readonly<FeatureModel>): boolean => {
    if (this.aim === 'again') return m.lastRolledBack !== undefined;
    if (this.aim === 'slot') return true;
    if (freshSlot(m) === undefined) return false;
    if (this.plan.parents.some((p) => p.startsWith('@h')) && m.held.length === 0) return false;
    return !(this.plan.key?.startsWith('@p') === true && m.lastPurgedKey === undefined);
  };

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    const slot =
      this.aim === 'again'
        ? (m.lastRolledBack ?? this.slot)
        : this.aim === 'fresh'
          ? (freshSlot(m) ?? this.slot)
          : this.slot;
    if (this.aim !== 'slot') m.trace.push(`  (${this.aim}: t${slot})`);
    const plan = m.plans.get(slot) ?? resolvePlan(this.plan, m, r, slot);
    m.plans.set(slot, plan);
    count(
      plan.delayed ? 'enqueue delayed' : plan.parents.length > 0 ? 'enqueue dependent' : 'enqueue',
    );
    const id = r.id(slot);
    const options: EnqueueOptions = {
      id,
      ...(plan.key === undefined ? {} : { orderingKey: plan.key }),
      ...(plan.parents.length === 0
        ? {}
        : { dependsOn: plan.parents, onParentDead: plan.onParentDead }),
      ...(plan.delayed ? { delay: DELAY_MS } : {}),
    };
    const body = payload(1000 + slot, plan.fate, plan.big);
    const held = plan.delayed
      ? r.scheduler.arm(this.schedule.endsWith('fail'), this.schedule.startsWith('held'))
      : undefined;
    if (!plan.delayed) r.scheduler.disarm();
    r.sendOutage.on = this.sendFails;
    // Whether an earlier enqueue of the id was accepted when this one began: only then must it
    // find the task instead of creating it (one that waited on its schedule meanwhile created
    // it first, whatever the calls that began after it were told).
    const known = m.tasks.has(id) && !m.purged.has(id) && !m.rolledBack.has(id);
    const call = attempt(() => r.producer(this.narrow).enqueue(r.types[plan.type], body, options));
    const first = held === undefined ? await call : await Promise.race([call, held.reached]);
    r.sendOutage.on = false;
    if (first === undefined && held !== undefined) {
      // The producer waits on its CreateSchedule; other commands run meanwhile.
      m.held.push({
        slot,
        id,
        fail: this.schedule.endsWith('fail'),
        settle: async () => {
          held.settle(this.schedule.endsWith('fail'));
          await settled(m, r, slot, id, plan, body.n, known, await call);
        },
      });
      m.trace.push(`${this} → waiting on CreateSchedule`);
      return;
    }
    r.scheduler.disarm();
    await settled(m, r, slot, id, plan, body.n, known, first as Outcome);
  }

  toString = () => {
    const p = this.plan;
    const parts = [
      this.aim === 'slot' ? `t${this.slot}` : `${this.aim} id`,
      p.type,
      p.fate,
      ...(p.key === undefined ? [] : [`key ${ref(p.key)}`]),
      ...(p.parents.length === 0
        ? []
        : [`after ${p.parents.map(ref).join('+')} (${p.onParentDead})`]),
      ...(p.delayed ? [`delayed, schedule ${this.schedule}`] : []),
      ...(p.big ? ['claim-checked'] : []),
      ...(this.narrow ? ['3 shards'] : []),
      ...(this.sendFails ? ['send fails'] : []),
    ];
    return `enqueue(${parts.join(', ')})`;
  };
}

/**
 * How a generated plan's reference reads in a trace: `k0`, `t1`; `held|t1` is the id waiting
 * on a held CreateSchedule (else t1), `purged|k0` the key of the task a purge deleted last
 * (else k0).
 */
function ref(name: string): string {
  if (name.startsWith('@h')) return `held|t${name.slice(2)}`;
  if (name.startsWith('@p')) return `purged|k${name.slice(2)}`;
  if (name.startsWith('@o')) return 'its own key';
  return name.replace(/^.*-/, '').replace(/^@/, '');
}

/**
 * The generated plan names keys and parents `@k<n>` and `@t<n>`, or aims them: `@h<n>` is the
 * id of the oldest enqueue waiting on its held CreateSchedule (if it is not this slot's), and
 * `@p<n>` the ordering key of the task a purge deleted last; each falls back to `<n>`. `@o`
 * is a key of the slot's own (k103 for t3). The run's names replace them.
 */
function resolvePlan(plan: SlotPlan, m: FeatureModel, r: FeatureSystem, slot: number): SlotPlan {
  const name = (ref: string) => {
    const n = Number(ref.slice(2));
    if (ref.startsWith('@h')) {
      const held = m.held.find((h) => h.slot !== slot);
      return held?.id ?? r.id(n);
    }
    if (ref.startsWith('@p')) return m.lastPurgedKey ?? r.key(n);
    // A key of this slot's own, which no other command names.
    if (ref.startsWith('@o')) return r.key(100 + slot);
    return ref.startsWith('@k') ? r.key(n) : r.id(n);
  };
  return {
    ...plan,
    key: plan.key === undefined ? undefined : name(plan.key),
    // Two references may name one parent once resolved.
    parents: [...new Set(plan.parents.map(name))],
  };
}

/**
 * Records what an enqueue by id was told. Checked at once: it never creates an id again that
 * an earlier enqueue was told exists; the record it returns is the record as it is (nothing
 * runs between its return and this read); and it throws only Tasklane's typed errors or an
 * injected outage of S3 or SQS (a failed CreateSchedule is a ScheduleFailedError).
 */
async function settled(
  m: FeatureModel,
  r: FeatureSystem,
  slot: number,
  id: string,
  plan: SlotPlan,
  n: number,
  known: boolean,
  outcome: Outcome,
): Promise<void> {
  if (outcome.ok) {
    const { result } = outcome;
    if (result.created && known) {
      m.violate(
        `one identity: enqueue of ${id} created it again, though an earlier enqueue of that id was accepted`,
      );
    }
    // Created by this call, unless calls that began later found it already.
    const fresh = result.created && (!m.tasks.has(id) || m.purged.has(id) || m.rolledBack.has(id));
    m.accept(id, plan, n, plan.fate, { created: fresh, sent: result.sent }, r.starts.length);
    m.trace.push(
      `  ${id}: created ${result.created}, sent ${result.sent}, ${result.record.status}`,
    );
    const now = await r.get(id);
    if (now?.createdAt === result.record.createdAt && now.status !== result.record.status) {
      m.violate(
        `stale: enqueue of ${id} returned its record ${result.record.status}, and it is ${now.status}`,
      );
    }
    return;
  }
  const { error } = outcome;
  m.trace.push(`  ${id}: threw ${describeError(error)}`);
  if (error instanceof ScheduleFailedError) {
    // Not enqueued: the id is free again (docs/scheduling.md), and may be planned anew;
    // unless a later enqueue of it created it meanwhile (then its plan stands).
    if (m.tasks.has(id) && !m.purged.has(id) && !m.rolledBack.has(id)) return;
    m.rolledBack.add(id);
    m.plans.delete(slot);
    m.lastRolledBack = slot;
    return;
  }
  if (!(error instanceof TasklaneError) && !isOutage(error)) {
    m.violate(`enqueue of ${id} threw an untyped ${describeError(error)}: ${String(error)}`);
  }
}

/**
 * An injected outage that may reach the producer as it is: S3's or SQS's. The scheduler's
 * injected ThrottlingException may not: a delayed enqueue whose CreateSchedule fails throws
 * ScheduleFailedError (docs/scheduling.md), whichever enqueue of the id it is.
 */
function isOutage(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name !== SCHEDULE_FAULT &&
    /injected by the model test/.test(error.message)
  );
}

/** Each debounce key's mode (k0 'last', k1 'first'): what a fold of the other mode does is not specified. */
export function debounceMode(dkey: number): 'last' | 'first' {
  return dkey === 0 ? 'last' : 'first';
}

/**
 * A debounced enqueue of key `dkey`: folds into the key's waiting task, or creates one. Aimed,
 * it takes the key and type of the last debounced enqueue (`last`), so that it meets that
 * task whatever happened to it since (died, redriven, parked); or of the debounced task a
 * redrive by key just put back in place (`redriven`, only until a delivery of its lane may
 * have rerun it), so that it meets the redriven task before it reruns.
 */
export class Debounce implements FeatureCommand {
  constructor(
    readonly dkey: number,
    readonly type: TypeName,
    readonly keyed: boolean,
    readonly fate: Fate,
    readonly narrow: boolean,
    readonly sendFails: boolean,
    readonly big: boolean,
    readonly aim?: 'last' | 'redriven',
  ) {}
  check = (m: Readonly<FeatureModel>): boolean =>
    this.aim === undefined || this.target(m) !== undefined;

  private target(m: Readonly<FeatureModel>) {
    if (this.aim === 'last') return m.lastDebounce;
    if (this.aim === 'redriven') return m.redrivenDebounce;
    return undefined;
  }

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    const aim = this.target(m);
    const dkey = aim?.dkey ?? this.dkey;
    const type = aim?.type ?? this.type;
    const mode = debounceMode(dkey);
    if (aim !== undefined) m.trace.push(`  (${this.aim}: d${dkey} ${type})`);
    m.lastDebounce = { dkey, type };
    m.redrivenDebounce = undefined;
    count(`debounce ${mode}`);
    const n = m.nextToken();
    const key = r.key(dkey);
    const debounce = { key, windowMs: WINDOW_MS, mode };
    r.scheduler.disarm();
    r.sendOutage.on = this.sendFails;
    const outcome = await attempt(() =>
      r.producer(this.narrow).enqueue(r.types[type], payload(n, this.fate, this.big), {
        debounce,
        ...(this.keyed ? { orderingKey: key } : {}),
      }),
    );
    r.sendOutage.on = false;
    if (!outcome.ok) {
      m.trace.push(`  threw ${describeError(outcome.error)}`);
      if (!(outcome.error instanceof TasklaneError) && !isOutage(outcome.error))
        m.violate(`debounced enqueue threw an untyped ${describeError(outcome.error)}`);
      return;
    }
    const { result } = outcome;
    m.trace.push(`  ${result.id}: created ${result.created}, absorbed ${result.absorbed}`);
    if (result.absorbed === true) {
      const into = m.tasks.get(result.id);
      if (into === undefined || into.debounce?.key !== key || into.type !== type) {
        m.violate(`debounce: enqueue #${n} was folded into ${result.id}, not a task of its key`);
      }
      const record = await r.get(result.id);
      const started = (record?.history ?? []).filter(
        (h) => h.event === AuditEvent.CLAIMED || h.event === AuditEvent.REDRIVEN,
      );
      if (started.length > 0 || (record?.attempt ?? 0) > 0) {
        m.violate(
          `debounce: enqueue #${n} was folded into ${result.id}, which has started (${started.map((h) => h.event).join(', ')}; ${record?.status}, attempt ${record?.attempt}): a fold never changes a started task`,
        );
      }
      if (into === undefined) return;
    }
    m.accept(
      result.id,
      {
        type,
        key: this.keyed ? key : undefined,
        debounce: { key, mode },
      },
      n,
      this.fate,
      result,
      r.starts.length,
    );
  }

  toString = () =>
    `debounce(${this.aim === undefined ? `d${this.dkey} ${debounceMode(this.dkey)}` : `like ${this.aim === 'last' ? 'last' : 'the redriven'}, else d${this.dkey}`}, ${this.aim === undefined ? this.type : `else ${this.type}`}, ${this.fate}${this.keyed ? ', keyed' : ''}${this.big ? ', claim-checked' : ''}${this.narrow ? ', 3 shards' : ''}${this.sendFails ? ', send fails' : ''})`;
}

/** The oldest held CreateSchedule answers (as planned), and its enqueue returns. */
export class SettleSchedule implements FeatureCommand {
  check = (m: Readonly<FeatureModel>) => m.held.length > 0;

  async run(m: FeatureModel): Promise<void> {
    count('schedule answers');
    const held = m.held.shift();
    await held?.settle();
  }

  toString = () => 'schedule answers';
}
