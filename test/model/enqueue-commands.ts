/**
 * The feature model's producer commands: an enqueue by id (plain or keyed, in either lane,
 * claim-checked or not, a dependent with either `onParentDead`, or delayed through a one-time
 * schedule whose CreateSchedule may fail or be held while other commands run), a debounced
 * enqueue in either mode, and the answer of a held CreateSchedule. Each one records what the
 * producer was told and checks what it can at once.
 */
import type fc from 'fast-check';
import type { EnqueueResult } from '../../src/client/batch.js';
import type { EnqueueOptions } from '../../src/client/prepare.js';
import { AuditEvent } from '../../src/core/constants.js';
import { ScheduleFailedError, TasklaneError } from '../../src/core/errors.js';
import type { FeatureModel, SlotPlan } from './feature-model.js';
import {
  DELAY_MS,
  type Fate,
  type FeatureSystem,
  type ModelPayload,
  type TypeName,
  WINDOW_MS,
} from './feature-system.js';

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

/** An enqueue with an explicit id: its plan is fixed by the id's first enqueue. */
export class Enqueue implements FeatureCommand {
  constructor(
    readonly slot: number,
    readonly plan: SlotPlan,
    readonly narrow: boolean,
    readonly sendFails: boolean,
    readonly schedule: ScheduleFault,
  ) {}
  check = () => true;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    const plan = m.plans.get(this.slot) ?? resolvePlan(this.plan, r);
    m.plans.set(this.slot, plan);
    count(
      plan.delayed ? 'enqueue delayed' : plan.parents.length > 0 ? 'enqueue dependent' : 'enqueue',
    );
    const id = r.id(this.slot);
    const options: EnqueueOptions = {
      id,
      ...(plan.key === undefined ? {} : { orderingKey: plan.key }),
      ...(plan.parents.length === 0
        ? {}
        : { dependsOn: plan.parents, onParentDead: plan.onParentDead }),
      ...(plan.delayed ? { delay: DELAY_MS } : {}),
    };
    const body = payload(1000 + this.slot, plan.fate, plan.big);
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
        slot: this.slot,
        id,
        fail: this.schedule.endsWith('fail'),
        settle: async () => {
          held.settle(this.schedule.endsWith('fail'));
          settled(m, this.slot, id, plan, body.n, known, await call);
        },
      });
      m.trace.push(`${this} → waiting on CreateSchedule`);
      return;
    }
    r.scheduler.disarm();
    settled(m, this.slot, id, plan, body.n, known, first as Outcome);
  }

  toString = () => {
    const p = this.plan;
    const parts = [
      `t${this.slot}`,
      p.type,
      p.fate,
      ...(p.key === undefined ? [] : [`key ${p.key.replace(/^.*-/, '')}`]),
      ...(p.parents.length === 0
        ? []
        : [`after ${p.parents.map((x) => x.replace(/^.*-/, '')).join('+')} (${p.onParentDead})`]),
      ...(p.delayed ? [`delayed, schedule ${this.schedule}`] : []),
      ...(p.big ? ['claim-checked'] : []),
      ...(this.narrow ? ['3 shards'] : []),
      ...(this.sendFails ? ['send fails'] : []),
    ];
    return `enqueue(${parts.join(', ')})`;
  };
}

/** The generated plan names keys and parents `@k<n>` and `@t<n>`: the run's names replace them. */
function resolvePlan(plan: SlotPlan, r: FeatureSystem): SlotPlan {
  const name = (ref: string) => {
    const n = Number(ref.slice(2));
    return ref.startsWith('@k') ? r.key(n) : r.id(n);
  };
  return {
    ...plan,
    key: plan.key === undefined ? undefined : name(plan.key),
    parents: plan.parents.map(name),
  };
}

function settled(
  m: FeatureModel,
  slot: number,
  id: string,
  plan: SlotPlan,
  n: number,
  known: boolean,
  outcome: Outcome,
): void {
  if (outcome.ok) {
    const { result } = outcome;
    if (result.created && known) {
      m.violate(
        `one identity: enqueue of ${id} created it again, though an earlier enqueue of that id was accepted`,
      );
    }
    // Created by this call, unless calls that began later found it already.
    const fresh = result.created && (!m.tasks.has(id) || m.purged.has(id) || m.rolledBack.has(id));
    m.accept(id, plan, n, plan.fate, { created: fresh, sent: result.sent });
    m.trace.push(
      `  ${id}: created ${result.created}, sent ${result.sent}, ${result.record.status}`,
    );
    return;
  }
  const { error } = outcome;
  m.trace.push(`  ${id}: threw ${describeError(error)}`);
  if (error instanceof ScheduleFailedError) {
    // Not enqueued: the id is free again (docs/scheduling.md), and may be planned anew.
    if (!m.tasks.has(id) || m.purged.has(id)) m.rolledBack.add(id);
    m.plans.delete(slot);
    return;
  }
  if (!(error instanceof TasklaneError) && !isOutage(error)) {
    m.violate(`enqueue of ${id} threw an untyped ${describeError(error)}: ${String(error)}`);
  }
}

function isOutage(error: unknown): boolean {
  return error instanceof Error && /injected by the model test/.test(error.message);
}

/** A debounced enqueue of key `dkey`: folds into the key's waiting task, or creates one. */
export class Debounce implements FeatureCommand {
  constructor(
    readonly dkey: number,
    readonly mode: 'last' | 'first',
    readonly type: TypeName,
    readonly keyed: boolean,
    readonly fate: Fate,
    readonly narrow: boolean,
    readonly sendFails: boolean,
    readonly big: boolean,
  ) {}
  check = () => true;

  async run(m: FeatureModel, r: FeatureSystem): Promise<void> {
    count(`debounce ${this.mode}`);
    const n = m.nextToken();
    const key = r.key(this.dkey);
    const debounce = { key, windowMs: WINDOW_MS, mode: this.mode };
    r.scheduler.disarm();
    r.sendOutage.on = this.sendFails;
    const outcome = await attempt(() =>
      r.producer(this.narrow).enqueue(r.types[this.type], payload(n, this.fate, this.big), {
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
      if (into === undefined || into.debounce?.key !== key || into.type !== this.type) {
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
        type: this.type,
        key: this.keyed ? key : undefined,
        debounce: { key, mode: this.mode },
      },
      n,
      this.fate,
      result,
    );
  }

  toString = () =>
    `debounce(d${this.dkey} ${this.mode}, ${this.type}, ${this.fate}${this.keyed ? ', keyed' : ''}${this.big ? ', claim-checked' : ''}${this.narrow ? ', 3 shards' : ''}${this.sendFails ? ', send fails' : ''})`;
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
