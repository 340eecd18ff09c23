/**
 * Feature costs: what a task costs with each flow-control feature, in requests and write
 * units, beside a plain task. Every scenario runs realistic tasks (300-byte payload,
 * Lambda-length worker id), each with its own ordering key, through the same untimed
 * measurement as the realistic scenario.
 *
 * EXTENSION POINT: to measure another feature, add a {@link FeatureScenario} to
 * {@link FEATURE_SCENARIOS}; the report shows one row per entry, in order, against the first
 * (the plain task). A scenario enqueues whatever it needs and returns the number of tasks it
 * created; its figures are per created task. For example, a dependent-task scenario would
 * enqueue `n` parents and `n` children with `{ dependsOn: [parentId] }` and return `2n`:
 * its row is then the mean of a parent and a child, and the extra per dependent task is
 * twice its difference from the plain row (the template says so when such a row exists).
 */
import * as z from 'zod';
import { defineTask, type TaskDefinition } from '../../src/index.js';
import { noop } from '../fixtures/noop.js';
import { realisticPayload } from '../fixtures/realistic.js';
import type { BenchContext } from './context.js';
import { type MeasuredTasks, measureTasks, type TaskSpec } from './measure-tasks.js';
import { waitFeatureScenarios } from './wait-features.js';

/** One feature's scenario. */
export interface FeatureScenario extends TaskSpec {
  /** Stable id, used in results.json. */
  readonly id: string;
  /** The row's label in BENCHMARKS.md (Markdown). */
  readonly name: string;
}

const schema = z.object({ i: z.number().int().nonnegative(), note: z.string() });

/** A plain task: the reference row. */
export const plainFeatureTask = defineTask('bench.feature.plain', {
  schema,
  handler: () => noop(),
});

/**
 * A rate-limited type whose limit is far above the rate here: what the bucket's writes cost,
 * including the refused ones and the deferrals that contention between workers causes.
 */
export const rateLimitedFeatureTask = defineTask('bench.feature.rateLimited', {
  schema,
  rateLimit: { limit: 100_000, intervalMs: 1_000 },
  handler: () => noop(),
});

/** A type that parks its ordering key when a task dies (ADR 0024); here none dies. */
export const parkingFeatureTask = defineTask('bench.feature.parking', {
  schema,
  onDead: 'park',
  handler: () => noop(),
});

/** A task type whose tasks wait for a parent (ADR 0030). */
export const dependentFeatureTask = defineTask('bench.feature.dependent', {
  schema,
  handler: () => noop(),
});

/**
 * `n` plain parents in one enqueueBatch, then `n` children each waiting for one of them
 * (`dependsOn`), enqueued before any parent runs: every child is created WAITING and released
 * by its parent's worker. Its row is the mean of a parent and a child (see the module comment).
 */
function dependentTasks(): FeatureScenario {
  return {
    id: 'dependent',
    name: 'Parent and dependent task, mean of the two (`dependsOn: [parent]`)',
    label: 'feature-dependent',
    tasks: [plainFeatureTask, dependentFeatureTask],
    enqueue: async (client, n) => {
      const parents = await client.enqueueBatch(
        Array.from({ length: n }, (_, i) => ({
          task: plainFeatureTask,
          payload: realisticPayload(i),
          options: { orderingKey: `parent-${i}` },
        })),
      );
      let created = parents.filter((r) => r.ok && r.created).length;
      for (const [i, parent] of parents.entries()) {
        if (!parent.ok) continue;
        const child = await client.enqueue(dependentFeatureTask, realisticPayload(i), {
          dependsOn: [parent.id],
        });
        if (child.created) created += 1;
      }
      return created;
    },
  };
}

/** A result of about 300 bytes: a step's first-run cost target is for results up to 1 KB. */
const stepResult = (i: number) => ({ i, note: 'x'.repeat(280) });

/** One memoized step (ADR 0047): its first run, one PutItem of its own item. */
export const stepFeatureTask = defineTask('bench.feature.step', {
  schema,
  handler: async ({ i }, ctx) => ctx.step('only', () => stepResult(i)),
});

/** One checkpoint of about 100 bytes (ADR 0047): one fenced write of the record. */
export const checkpointFeatureTask = defineTask('bench.feature.checkpoint', {
  schema,
  handler: async ({ i }, ctx) => {
    await ctx.saveCheckpoint({ i, cursor: 'c'.repeat(80) });
  },
});

/** One continuation, then done (ADR 0047): the continue write, the kept message, a new claim. */
export const continueFeatureTask = defineTask('bench.feature.continue', {
  schema,
  // The checkpoint tells the second slice apart; the checkpoint row is its own cost.
  handler: async (_payload, ctx) => {
    if (ctx.checkpoint !== undefined) return 'done';
    await ctx.saveCheckpoint(1);
    return ctx.continue();
  },
});

/** How many steps the replay scenario stores and replays. */
export const REPLAY_STEPS = 100;

/**
 * How long a replay task's slice may take. The emulator serializes every request, so a batch
 * of ten of these (1,000 step writes) can take minutes on a loaded machine, where on AWS a
 * slice takes about a second; the default 30 s timeout made such slices time out and retry,
 * which is not what the row measures.
 */
const REPLAY_TIMEOUT_SECONDS = 600;

/**
 * 100 steps stored in the first slice, a checkpoint, one continuation, and the second slice
 * replays all 100: the row minus the step, checkpoint and continuation rows is the replay.
 */
export const replayFeatureTask = defineTask('bench.feature.replay', {
  schema,
  timeout: REPLAY_TIMEOUT_SECONDS * 1000,
  handler: async ({ i }, ctx) => {
    for (let n = 0; n < REPLAY_STEPS; n++) await ctx.step(`s${n}`, () => (i + n) % 97);
    if (ctx.checkpoint !== undefined) return 'replayed';
    await ctx.saveCheckpoint(1);
    return ctx.continue();
  },
});

/**
 * A tenth of `n` replay tasks (each stores 100 steps, so the emulator's share stays that of
 * the other rows); figures are per created task as everywhere.
 */
function replayTasks(): FeatureScenario {
  const keyed = keyedTasks(
    'replay',
    `Durable task, ${REPLAY_STEPS} steps, a checkpoint, a continuation, ${REPLAY_STEPS} steps replayed`,
    replayFeatureTask,
  );
  return {
    ...keyed,
    enqueue: (client, n) => keyed.enqueue(client, Math.max(1, Math.ceil(n / 10))),
    // The stand-in Lambda's timeout bounds the handler's: both as long as the slice may take.
    workerTimeoutSeconds: REPLAY_TIMEOUT_SECONDS + 60,
    invocationTimeoutSeconds: REPLAY_TIMEOUT_SECONDS + 60,
    drainMsPerTask: 2 * REPLAY_STEPS * 200,
  };
}

/** Enqueues `n` tasks of `task`, each with its own ordering key, in one enqueueBatch. */
function keyedTasks(id: string, name: string, task: TaskDefinition): FeatureScenario {
  return {
    id,
    name,
    label: `feature-${id}`,
    tasks: [task],
    enqueue: async (client, n) => {
      const results = await client.enqueueBatch(
        Array.from({ length: n }, (_, i) => ({
          task,
          payload: realisticPayload(i),
          options: { orderingKey: `key-${i}` },
        })),
      );
      return results.filter((r) => r.ok && r.created).length;
    },
  };
}

/** The feature scenarios, plain first. Add new features here (see the module comment). */
export const FEATURE_SCENARIOS: readonly FeatureScenario[] = [
  keyedTasks('plain', 'Plain task', plainFeatureTask),
  keyedTasks(
    'rateLimited',
    'Rate-limited task (`rateLimit`, limit far above the rate)',
    rateLimitedFeatureTask,
  ),
  keyedTasks('parking', "Task of an `onDead: 'park'` type (succeeds)", parkingFeatureTask),
  dependentTasks(),
  keyedTasks(
    'step',
    'Durable task, one step, first run (`ctx.step`, 300-byte result)',
    stepFeatureTask,
  ),
  keyedTasks(
    'checkpoint',
    'Durable task, one checkpoint (`ctx.saveCheckpoint`, 100 bytes)',
    checkpointFeatureTask,
  ),
  keyedTasks(
    'continue',
    'Durable task, one checkpoint and one continuation (`return ctx.continue()`)',
    continueFeatureTask,
  ),
  replayTasks(),
  ...waitFeatureScenarios(),
];
/** One measured feature. */
export interface FeatureRun {
  readonly id: string;
  readonly name: string;
  readonly measured: MeasuredTasks;
}

/** The feature costs of a run. */
export interface FeatureResults {
  readonly tasks: number;
  readonly runs: readonly FeatureRun[];
  /**
   * Rows measured by a later partial run (`bench/cost-scenario.ts --features … --write-results`)
   * and merged into the full run's results: when, and which rows. `npm run bench` drops it.
   */
  readonly partial?: { readonly date: string; readonly ids: readonly string[] };
}

/** Measures every scenario of `scenarios` at the profile's size. */
export async function runFeatures(
  ctx: BenchContext,
  scenarios: readonly FeatureScenario[] = FEATURE_SCENARIOS,
): Promise<FeatureResults> {
  const n = ctx.profile.featureTasks;
  const runs: FeatureRun[] = [];
  for (const scenario of scenarios) {
    runs.push({
      id: scenario.id,
      name: scenario.name,
      measured: await measureTasks(ctx, scenario, n),
    });
    ctx.log(`feature ${scenario.id}: ${n} tasks counted`);
  }
  return { tasks: n, runs };
}
