/**
 * The realistic scenario the cost figures come from: 300-byte payloads and a Lambda-length
 * worker id (bench/fixtures/realistic.ts), each task once successful and once retried (its
 * first attempt fails). Counted, not timed: write units come from the item images, so the
 * status index's writes are priced from what it really holds.
 */
import type { TaskDefinition } from '../../src/index.js';
import { realisticFailOnceTask, realisticPayload, realisticTask } from '../fixtures/realistic.js';
import type { BenchContext } from './context.js';
import { type MeasuredTasks, measureTasks, type TaskSpec } from './measure-tasks.js';

/** The realistic scenario's two runs. */
export interface RealisticResults {
  readonly tasks: number;
  readonly successful: MeasuredTasks;
  readonly retried: MeasuredTasks;
}

/** Enqueues `n` realistic tasks of `task` in one enqueueBatch. */
export function realisticSpec(
  label: string,
  task: TaskDefinition,
  timeout = 60,
  failuresPerTask = 0,
): TaskSpec {
  return {
    label,
    tasks: [task],
    workerTimeoutSeconds: timeout,
    failuresPerTask,
    enqueue: async (client, n) => {
      const results = await client.enqueueBatch(
        Array.from({ length: n }, (_, i) => ({ task, payload: realisticPayload(i) })),
      );
      return results.filter((r) => r.ok && r.created).length;
    },
  };
}

/** Runs both. */
export async function runRealistic(ctx: BenchContext): Promise<RealisticResults> {
  const n = ctx.profile.realisticTasks;
  const successful = await measureTasks(ctx, realisticSpec('realistic', realisticTask), n);
  ctx.log(`realistic: ${n} successful tasks counted`);
  const retried = await measureTasks(
    ctx,
    realisticSpec('realistic-retried', realisticFailOnceTask, 1, 1),
    n,
  );
  ctx.log(`realistic: ${n} retried tasks counted`);
  return { tasks: n, successful, retried };
}
