/**
 * Feature scenarios of durable waits (ADR 0048): sleeps, signals, and pause and resume, each
 * a row of the feature table beside the plain task. Every task but the released sleep's has
 * its own ordering key, as in the other rows, so its message is held while it waits.
 *
 * A waiting scenario's tasks all wake at one time, fixed at enqueue (the payload's `wakeAt`)
 * far enough ahead that every task is SUSPENDED for a whole observed window before the first
 * wakes (measureTasks's `wait`: requests and invocations in the window, none expected). The
 * pause of a suspended task and the signal sent after the wait run when the window ends.
 */
import * as z from 'zod';
import { defineTask, type TaskClient, type TaskDefinition } from '../../src/index.js';
import { noop } from '../fixtures/noop.js';
import { REALISTIC_PAYLOAD_BYTES } from '../fixtures/realistic.js';
import type { TaskSpec } from './measure-tasks.js';

/** A feature scenario (features.ts's `FeatureScenario`, which lists these). */
interface FeatureScenario extends TaskSpec {
  readonly id: string;
  readonly name: string;
}

/** How long the requests of every task's wait are counted. */
export const WAIT_WINDOW_MS = 5_000;
/** The wake time's lead at enqueue: the window, plus the time for every task to suspend. */
const WAKE_LEAD_BASE_MS = 15_000;
const WAKE_LEAD_PER_TASK_MS = 250;
/** Sleeps beyond this are released to a wake schedule in the released-sleep scenario. */
const SCHEDULE_THRESHOLD_MS = 1_000;

const waitSchema = z.object({
  i: z.number().int().nonnegative(),
  note: z.string(),
  wakeAt: z.number().int().positive(),
});
type WaitPayload = z.infer<typeof waitSchema>;

/** A 300-byte payload, as the other rows', that carries the wake time. */
function waitPayload(i: number, wakeAt: number): WaitPayload {
  const bare = JSON.stringify({ i, note: '', wakeAt }).length;
  return { i, note: 'x'.repeat(REALISTIC_PAYLOAD_BYTES - bare), wakeAt };
}

/** One sleep until the payload's wake time (`ctx.sleep`). */
export const sleepFeatureTask = defineTask('bench.feature.sleep', {
  schema: waitSchema,
  handler: async ({ wakeAt }, ctx) => {
    await ctx.sleep('nap', new Date(wakeAt));
  },
});

/** One signal wait without a timeout; the data is small (inline). */
export const signalFeatureTask = defineTask('bench.feature.signal', {
  schema: waitSchema,
  handler: async (_payload, ctx) => {
    const outcome = await ctx.waitForSignal('approval');
    if (!outcome.received) throw new Error('a signal wait without a timeout ended unsignalled');
  },
});

/** One signal wait that times out at the payload's wake time (no signal is sent). */
export const signalTimeoutFeatureTask = defineTask('bench.feature.signalTimeout', {
  schema: waitSchema,
  handler: async ({ wakeAt }, ctx) => {
    // A woken slice takes the wait's end from the record, not from this computation.
    const outcome = await ctx.waitForSignal('approval', {
      timeoutMs: Math.max(1, wakeAt - Date.now()),
    });
    if (outcome.received) throw new Error('no signal was sent');
  },
});

/** A plain task, paused and resumed while QUEUED. */
export const pausedFeatureTask = defineTask('bench.feature.paused', {
  schema: waitSchema,
  handler: () => noop(),
});

/** The small data a signal carries. */
const SIGNAL_DATA = { approved: true, by: 'bench' };

interface WaitScenarioOptions {
  readonly keyed?: boolean;
  /** Runs after enqueue, before any worker (a signal sent before the wait, a pause). */
  readonly beforeDrain?: (client: TaskClient, ids: readonly string[]) => Promise<void>;
  /** Observe the wait; `after` runs when the window ends. */
  readonly observe?: { after?: (client: TaskClient, ids: readonly string[]) => Promise<void> };
}

/** Enqueues `n` tasks of `task` in one enqueueBatch, all waking at one time. */
function waitScenario(
  id: string,
  name: string,
  task: TaskDefinition<typeof waitSchema>,
  options: WaitScenarioOptions,
  extra: Partial<FeatureScenario> = {},
): FeatureScenario {
  let ids: string[] = [];
  const { observe } = options;
  return {
    id,
    name,
    label: `feature-${id}`,
    tasks: [task],
    enqueue: async (client, n) => {
      const wakeAt = Date.now() + WAKE_LEAD_BASE_MS + n * WAKE_LEAD_PER_TASK_MS + WAIT_WINDOW_MS;
      const results = await client.enqueueBatch(
        Array.from({ length: n }, (_, i) => ({
          task,
          payload: waitPayload(i, wakeAt),
          ...(options.keyed === false ? {} : { options: { orderingKey: `key-${i}` } }),
        })),
      );
      ids = results.flatMap((r) => (r.ok && r.created ? [r.id] : []));
      await options.beforeDrain?.(client, ids);
      return ids.length;
    },
    ...(observe === undefined
      ? {}
      : {
          wait: {
            windowMs: WAIT_WINDOW_MS,
            ...(observe.after === undefined
              ? {}
              : { after: (client: TaskClient) => observe.after?.(client, ids) ?? noop() }),
          },
        }),
    ...extra,
  };
}

/** Calls per task sent at once: each task's own calls stay in order (the image meter's rule). */
const SENDERS = 5;

/** Runs `call` for every id, {@link SENDERS} at a time. */
async function eachId(ids: readonly string[], call: (id: string) => Promise<unknown>) {
  let next = 0;
  const sender = async () => {
    while (next < ids.length) {
      const id = ids[next++] as string;
      await call(id);
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
}

async function signalEach(client: TaskClient, ids: readonly string[]): Promise<void> {
  await eachId(ids, (id) => client.signal(id, 'approval', SIGNAL_DATA));
}

async function pauseAndResumeEach(client: TaskClient, ids: readonly string[]): Promise<void> {
  await eachId(ids, (id) => client.pause(id, 'bench'));
  await eachId(ids, (id) => client.resume(id));
}

/**
 * The drain's time per task for a scenario that sends calls after its wait: the wake lead,
 * and the calls themselves, slow on a loaded emulator.
 */
const AFTER_WAIT_DRAIN_MS_PER_TASK = 2_000;

/** The durable-wait rows, in the order of the feature table. */
export function waitFeatureScenarios(): FeatureScenario[] {
  return [
    waitScenario(
      'sleepHeld',
      'Durable task, one sleep, message held (`ctx.sleep`; a keyed task, or a timer under `scheduleThresholdMs`: SQS visibility)',
      sleepFeatureTask,
      { observe: {} },
    ),
    waitScenario(
      'sleepScheduled',
      'Durable task, one sleep, released to a one-time wake schedule (`ctx.sleep`, no key, timer past `scheduleThresholdMs`)',
      sleepFeatureTask,
      { keyed: false, observe: {} },
      { scheduling: { thresholdMs: SCHEDULE_THRESHOLD_MS }, messagesPerTask: 2 },
    ),
    waitScenario(
      'signalAfter',
      'Durable task, one signal wait, the signal sent while it waits (`ctx.waitForSignal`, `client.signal`)',
      signalFeatureTask,
      { observe: { after: signalEach } },
      { drainMsPerTask: AFTER_WAIT_DRAIN_MS_PER_TASK },
    ),
    waitScenario(
      'signalBefore',
      'Durable task, one signal wait, the signal sent before the wait',
      signalFeatureTask,
      { beforeDrain: signalEach },
    ),
    waitScenario(
      'signalTimeout',
      'Durable task, one signal wait that times out (`timeoutMs`, no signal)',
      signalTimeoutFeatureTask,
      { observe: {} },
    ),
    waitScenario(
      'pauseQueued',
      'Task paused and resumed while QUEUED, before a worker received it (`client.pause`, `client.resume`)',
      pausedFeatureTask,
      { beforeDrain: pauseAndResumeEach },
      { messagesPerTask: 2 },
    ),
    waitScenario(
      'pauseSuspended',
      'Durable task paused and resumed while it waits for a signal, then signalled',
      signalFeatureTask,
      {
        observe: {
          after: async (client, ids) => {
            await pauseAndResumeEach(client, ids);
            await signalEach(client, ids);
          },
        },
      },
      { drainMsPerTask: AFTER_WAIT_DRAIN_MS_PER_TASK },
    ),
  ];
}
