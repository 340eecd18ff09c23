/**
 * Single enqueue: Tasklane's `enqueue` (PutItem, SendMessage, UpdateItem) against one raw
 * SendMessage, each called in sequence, repetitions interleaved.
 */
import { createExecutor } from '../lib/environment.js';
import type { BenchContext } from './context.js';
import { type ProducerRun, rawSendEach, tasklaneEnqueueEach } from './producers.js';

/** One producer run per repetition and system. */
export interface SingleEnqueueResults {
  readonly tasks: number;
  readonly tasklane: ProducerRun[];
  readonly raw: ProducerRun[];
}

/** Runs the interleaved repetitions. */
export async function runSingleEnqueue(ctx: BenchContext): Promise<SingleEnqueueResults> {
  const { reps, singleEnqueueTasks: n } = ctx.profile;
  const results: SingleEnqueueResults = { tasks: n, tasklane: [], raw: [] };
  for (let rep = 0; rep < reps; rep++) {
    const order = rep % 2 === 0 ? (['raw', 'tasklane'] as const) : (['tasklane', 'raw'] as const);
    for (const system of order) {
      const executor = await createExecutor(ctx.admin, `single-${system}`);
      try {
        const run =
          system === 'tasklane'
            ? await tasklaneEnqueueEach(executor, n)
            : await rawSendEach(executor.queueUrl, n);
        ctx.checks.equal(`single enqueue ${system}: tasks sent`, run.sent, n);
        results[system].push(run);
        ctx.log(
          `single enqueue rep ${rep + 1}/${reps} ${system}: ${(run.ms / n).toFixed(1)} ms per task`,
        );
      } finally {
        await executor.destroy();
      }
    }
  }
  return results;
}
