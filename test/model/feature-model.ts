/**
 * The feature model's state: what the producers were told (which enqueues were accepted, into
 * which task, with which payload and options), what the operators did (redrives, releases,
 * purges, cancels) and which workers died holding which tasks. It does not predict every
 * status: the real system's statuses are read and judged against the guarantees (see
 * ./feature-oracle.ts), which need only what the callers were promised.
 */
import type { Fate, TypeName } from './feature-system.js';
import { FEATURE_SLOTS, LANE_OF } from './feature-system.js';

export type OnParentDead = 'cancel' | 'run';

/** What an accepted task was enqueued as. */
export interface ModelTask {
  readonly id: string;
  readonly type: TypeName;
  readonly lane: string;
  readonly key: string | undefined;
  readonly parents: readonly string[];
  readonly onParentDead: OnParentDead;
  readonly debounce: { readonly key: string; readonly mode: 'last' | 'first' } | undefined;
  readonly delayed: boolean;
  /** Payload tokens (`n`) accepted into it, in order; fates by token. */
  readonly tokens: number[];
  readonly fates: Map<number, Fate>;
  /** Position among the tasks created in this sequence (its place in its key's order). */
  readonly created: number;
  /** An enqueue of it returned `sent: false`: its key's order may be overtaken (docs/limits.md). */
  unsent: boolean;
  /** Redrives that moved it out of DEAD. */
  redrives: number;
  /** Deliveries to a worker that died with it in its batch. */
  crashes: number;
  /**
   * Handler starts of the run before it was created: those of an earlier task of the same id
   * (purged, or rolled back) are not its own.
   */
  readonly startsBefore: number;
}

/** An explicit-id slot's first enqueue, reused by every retry of that id. */
export interface SlotPlan {
  readonly type: TypeName;
  readonly key: string | undefined;
  readonly fate: Fate;
  readonly parents: readonly string[];
  readonly onParentDead: OnParentDead;
  readonly delayed: boolean;
  readonly big: boolean;
}

export class FeatureModel {
  /** Accepted tasks by id. */
  readonly tasks = new Map<string, ModelTask>();
  /** Plans of explicit ids, by slot; forgotten when the id is free again (rolled back). */
  readonly plans = new Map<number, SlotPlan>();
  /** Ids a purge deleted: gone legitimately. */
  readonly purged = new Set<string>();
  /** Ids whose enqueue threw ScheduleFailedError and that no later enqueue accepted. */
  readonly rolledBack = new Set<string>();
  /** Violations seen during the commands (the final check adds its own). */
  readonly violations: string[] = [];
  /** Enqueues waiting on a held CreateSchedule. */
  readonly held: {
    readonly slot: number;
    readonly id: string;
    readonly fail: boolean;
    readonly settle: () => Promise<void>;
  }[] = [];
  /**
   * What the targeted commands aim at (./feature-commands.ts): the slot an enqueue rolled back
   * last, the ordering key of the task a purge deleted last, and the key (by index) and type
   * of the last debounced enqueue.
   */
  lastRolledBack: number | undefined;
  /** How many explicit ids (slots) the commands use. */
  readonly slots: number = FEATURE_SLOTS;
  lastPurgedKey: string | undefined;
  lastDebounce: { readonly dkey: number; readonly type: TypeName } | undefined;
  /**
   * The task a delivery saw park its key last (DEAD, holding its ordering key), until a
   * redrive, a release or a purge of it: what an aimed redrive by key takes. Read from the
   * system after each delivery, to aim commands only; the oracle never relies on it.
   */
  lastParked: { readonly id: string; readonly key: string } | undefined;
  /**
   * The id, debounce key (by index) and type of a debounced task a redrive by key just put
   * back in place, until a delivery receives it (it reruns) or a debounced enqueue runs.
   */
  redrivenDebounce:
    | { readonly id: string; readonly dkey: number; readonly type: TypeName }
    | undefined;
  /**
   * Tasks a pause by key made PAUSED, not resumed since, with the count of handler starts when
   * they were paused: none of them may start before its resume.
   */
  readonly paused = new Map<string, number>();
  /** A line per command, for the report of a failure. */
  readonly trace: string[] = [];
  private created = 0;
  private token = 0;
  steps = 0;

  nextToken(): number {
    this.token += 1;
    return this.token;
  }

  /** Records an accepted enqueue into `id`; returns the task. */
  accept(
    id: string,
    plan: {
      readonly type: TypeName;
      readonly key: string | undefined;
      readonly parents?: readonly string[];
      readonly onParentDead?: OnParentDead;
      readonly debounce?: { readonly key: string; readonly mode: 'last' | 'first' };
      readonly delayed?: boolean;
    },
    token: number,
    fate: Fate,
    outcome: { readonly created: boolean; readonly sent: boolean },
    startsSoFar: number,
  ): ModelTask {
    this.purged.delete(id);
    this.rolledBack.delete(id);
    let task = this.tasks.get(id);
    if (task === undefined || outcome.created) {
      task = {
        id,
        type: plan.type,
        lane: LANE_OF[plan.type],
        key: plan.key,
        parents: plan.parents ?? [],
        onParentDead: plan.onParentDead ?? 'cancel',
        debounce: plan.debounce,
        delayed: plan.delayed ?? false,
        tokens: [],
        fates: new Map(),
        created: this.created++,
        unsent: false,
        redrives: 0,
        crashes: 0,
        startsBefore: startsSoFar,
      };
      this.tasks.set(id, task);
    }
    if (!task.tokens.includes(token)) task.tokens.push(token);
    task.fates.set(token, fate);
    if (!outcome.sent) task.unsent = true;
    return task;
  }

  /** The payload token a run of `task` must see. */
  expectedToken(task: ModelTask): number | undefined {
    if (task.debounce?.mode === 'last') return task.tokens.at(-1);
    return task.tokens[0];
  }

  violate(message: string): void {
    this.violations.push(message);
  }
}
