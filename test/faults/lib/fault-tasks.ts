/**
 * The task the fault suite runs, in the test process and in worker child processes alike.
 * Its payload says how it behaves (succeed, fail once, poison, hang, crash the process,
 * call a flaky dependency). Every run reports its call when the handler is entered, and
 * writes its effect to the effects ledger when its side effect happens.
 */
import { z } from 'zod';
import { PermanentError } from '../../../src/core/errors.js';
import {
  defineTask,
  type TaskContext,
  type TaskDefinition,
} from '../../../src/tasks/task-definition.js';
import type { EffectsLedger, RunEnd, RunEntry } from './ledger.js';
import { sleep } from './random.js';

/** The one task type of the fault suite. */
export const FAULT_TASK_TYPE = 'fault.work';

/** How a task behaves when run. */
export const WorkMode = {
  /** Works for `runMs`, then records its effect. */
  OK: 'ok',
  /** Throws a transient error on attempt 1 (to `failAttempts`), then behaves like `ok`. */
  FAIL_ONCE: 'fail-once',
  /** Poison: throws on every attempt, so it is retried until DEAD. */
  THROW: 'throw',
  /** Poison: throws PermanentError, so it is DEAD after one attempt. */
  PERMANENT: 'permanent',
  /** Poison: never settles and ignores its signal; only the timeout ends it. */
  HANG: 'hang',
  /** Poison: an uncaught exception kills the worker process. */
  CRASH: 'crash',
  /** Calls the scenario's dependency first; fails while the dependency is down. */
  DEPENDENCY: 'dependency',
  /** Throws PermanentError (DEAD at once) until the profile says `fixDeployed`, then `ok`. */
  BROKEN_UNTIL_FIX: 'broken-until-fix',
  /**
   * A durable task: `steps` memoized steps of `runMs` each, every one recording its own effect
   * (task id `<id>/s<n>`), continuing once after step `continueAt` when given
   * (docs/durable-tasks.md).
   */
  DURABLE: 'durable',
  /**
   * A durable task that waits: step `before`, then `ctx.sleep('nap', waitMs)` (`wait:
   * 'sleep'`) or `ctx.waitForSignal('go', { timeoutMs: waitMs })` (`wait: 'signal'`), then step
   * `after`, which records its effect (task id `<id>/after`) with what the wait returned, then
   * the task's own effect. Scenario (v).
   */
  WAITS: 'waits',
} as const;
export type WorkMode = (typeof WorkMode)[keyof typeof WorkMode];

export const workPayload = z.strictObject({
  seq: z.number().int().min(0),
  mode: z.enum(Object.values(WorkMode) as [WorkMode, ...WorkMode[]]),
  runMs: z.number().int().min(0).max(60_000),
  key: z.string().max(128).optional(),
  /** Heartbeats (`ctx.heartbeat()`, one after another) before the work of `runMs`. */
  beats: z.number().int().min(0).max(50_000).optional(),
  /** Attempts that fail in mode `fail-once`. @default 1 */
  failAttempts: z.number().int().min(1).max(100).optional(),
  /** Steps of mode `durable`. */
  steps: z.number().int().min(1).max(100).optional(),
  /** Mode `durable`: the first slice continues after this many steps. */
  continueAt: z.number().int().min(1).max(100).optional(),
  /** Mode `waits`: what the task waits for between its two steps. */
  wait: z.enum(['sleep', 'signal']).optional(),
  /** Mode `waits`: the sleep's duration, or the signal wait's timeout. */
  waitMs: z.number().int().min(0).max(600_000).optional(),
});
export type WorkPayload = z.infer<typeof workPayload>;

/** Timeout and retry policy of the fault task, per scenario. */
export interface TaskProfile {
  readonly timeoutMs: number;
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /**
   * Call `heartbeat()` right before the side effect: a lease lost meanwhile then aborts the
   * run instead of letting a stale attempt repeat the effect.
   */
  readonly fenceEffect?: boolean;
  /** `'park'`: a DEAD task parks its ordering key (docs/parked-keys.md). */
  readonly onDead?: 'park';
  /** Workers run with the fix of mode `broken-until-fix` deployed. */
  readonly fixDeployed?: boolean;
}

/** What a handler run needs from its host. */
export interface HandlerEnv {
  readonly ledger: EffectsLedger;
  /** Receives each handler call as it starts, with the handler's own start time. */
  readonly calls: (entry: RunEntry) => void;
  /** Receives each handler call as it ends (returns or throws), with its own end time. */
  readonly ends?: (entry: RunEnd) => void;
  readonly workerId: string;
  readonly profile: TaskProfile;
  /** The flaky dependency of scenario (h); throws while it is down. */
  readonly dependency?: () => Promise<void>;
  /** Sees every handler start, in order. */
  readonly onCall?: (payload: WorkPayload, run: Omit<RunEntry, 'at'>) => void;
}

const never = () => new Promise<never>(() => undefined);

/** Builds the fault task definition for one worker. */
export function faultTask(env: HandlerEnv): TaskDefinition {
  const { workerId, profile } = env;
  return defineTask(FAULT_TASK_TYPE, {
    schema: workPayload,
    timeout: profile.timeoutMs,
    ...(profile.onDead === undefined ? {} : { onDead: profile.onDead }),
    retry: {
      maxAttempts: profile.maxAttempts,
      baseDelayMs: profile.baseDelayMs,
      maxDelayMs: profile.maxDelayMs,
    },
    handler: async (payload, ctx) => {
      const run = { taskId: ctx.taskId, attempt: ctx.attempt, workerId };
      env.calls({ ...run, at: Date.now() });
      env.onCall?.(payload, run);
      try {
        return await work(env, payload, ctx, run);
      } catch (err) {
        env.ends?.({ ...run, at: Date.now(), ok: false });
        throw err;
      }
    },
  }) as TaskDefinition;
}

/** The id under which step `n` of a durable task records its effect. */
export function stepEffectId(taskId: string, n: number): string {
  return `${taskId}/s${n}`;
}

/**
 * A durable task's run: its steps, each recording its effect inside the step, so that a step
 * stored is an effect that happened, and a step replayed records nothing; then, like `ok`,
 * the task's own effect.
 */
async function durableWork(
  env: HandlerEnv,
  payload: WorkPayload,
  ctx: TaskContext,
  run: Omit<RunEntry, 'at'>,
): Promise<{ seq: number } | ReturnType<TaskContext['continue']>> {
  const steps = payload.steps ?? 1;
  for (let n = 0; n < steps; n++) {
    await ctx.step(`s${n}`, async () => {
      await sleep(payload.runMs, ctx.signal);
      if (ctx.signal.aborted) throw ctx.signal.reason;
      await env.ledger.record({ ...run, taskId: stepEffectId(run.taskId, n) });
      return n;
    });
    if (n + 1 === payload.continueAt && ctx.checkpoint === undefined) {
      await ctx.saveCheckpoint({ continuedAfter: n + 1 });
      env.ends?.({ ...run, at: Date.now(), ok: true });
      return ctx.continue();
    }
  }
  await env.ledger.record(run);
  env.ends?.({ ...run, at: Date.now(), ok: true });
  return { seq: payload.seq };
}

/** The id under which the step after a wait (mode `waits`) records its effect. */
export function afterWaitEffectId(taskId: string): string {
  return `${taskId}/after`;
}

/** The id under which the step before a wait (mode `waits`) records its effect. */
export function beforeWaitEffectId(taskId: string): string {
  return `${taskId}/before`;
}

/**
 * A waiting task's run (mode `waits`): a step, a sleep or a signal wait, and a step that
 * records, inside the step, what the wait returned (`detail`: `slept`, `timeout`, or
 * `signal:<data>`), so that a repeated effect or a signal consumed twice shows in the ledger.
 */
async function waitsWork(
  env: HandlerEnv,
  payload: WorkPayload,
  ctx: TaskContext,
  run: Omit<RunEntry, 'at'>,
): Promise<{ seq: number }> {
  const waitMs = payload.waitMs ?? 1000;
  await ctx.step('before', async () => {
    await sleep(payload.runMs, ctx.signal);
    if (ctx.signal.aborted) throw ctx.signal.reason;
    await env.ledger.record({ ...run, taskId: beforeWaitEffectId(run.taskId) });
    return true;
  });
  let detail = 'slept';
  if (payload.wait === 'signal') {
    const answer = await ctx.waitForSignal('go', { timeoutMs: waitMs });
    detail = answer.received ? `signal:${JSON.stringify(answer.data)}` : 'timeout';
  } else {
    await ctx.sleep('nap', waitMs);
  }
  await ctx.step('after', async () => {
    await env.ledger.record({ ...run, taskId: afterWaitEffectId(run.taskId), detail });
    return detail;
  });
  await env.ledger.record(run);
  env.ends?.({ ...run, at: Date.now(), ok: true });
  return { seq: payload.seq };
}

/** A run's work; reports its end when it returns (a throw is reported by the caller). */
async function work(
  env: HandlerEnv,
  payload: WorkPayload,
  ctx: TaskContext,
  run: Omit<RunEntry, 'at'>,
): Promise<{ seq: number } | ReturnType<TaskContext['continue']>> {
  const { ledger, profile } = env;
  switch (payload.mode) {
    case WorkMode.THROW:
      throw new Error(`poison task ${payload.seq} fails on every attempt`);
    case WorkMode.PERMANENT:
      throw new PermanentError(`poison task ${payload.seq} is permanently invalid`);
    case WorkMode.HANG:
      return never();
    case WorkMode.CRASH:
      setImmediate(() => {
        throw new Error(`poison task ${payload.seq} crashes its worker`);
      });
      return never();
    case WorkMode.FAIL_ONCE:
      if (ctx.attempt <= (payload.failAttempts ?? 1)) {
        throw new Error(`task ${payload.seq}: transient failure`);
      }
      break;
    case WorkMode.BROKEN_UNTIL_FIX:
      if (profile.fixDeployed !== true) {
        throw new PermanentError(`task ${payload.seq} is broken until its fix is deployed`);
      }
      break;
    case WorkMode.DEPENDENCY:
      if (env.dependency === undefined) throw new Error('no dependency configured');
      await env.dependency();
      break;
    case WorkMode.DURABLE:
      return durableWork(env, payload, ctx, run);
    case WorkMode.WAITS:
      return waitsWork(env, payload, ctx, run);
    case WorkMode.OK:
      break;
  }
  for (let beat = 0; beat < (payload.beats ?? 0); beat++) await ctx.heartbeat();
  await sleep(payload.runMs, ctx.signal);
  if (profile.fenceEffect) await ctx.heartbeat();
  if (ctx.signal.aborted) throw ctx.signal.reason;
  await ledger.record(run);
  // Reported before the worker writes the outcome, so the end precedes any later task.
  env.ends?.({ ...run, at: Date.now(), ok: true });
  return { seq: payload.seq };
}
