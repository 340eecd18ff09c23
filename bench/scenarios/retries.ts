/**
 * Requests per retried task: every task fails its first attempt and succeeds on the second,
 * through Tasklane and through the Powertools baseline, repetitions interleaved.
 */
import type { BenchContext } from './context.js';
import { type EndToEndRun, runEndToEnd } from './end-to-end.js';

/** One run per repetition and system. */
export interface RetryResults {
  readonly tasks: number;
  readonly tasklane: EndToEndRun[];
  readonly powertools: EndToEndRun[];
}

/** Runs the interleaved repetitions. */
export async function runRetries(ctx: BenchContext): Promise<RetryResults> {
  const { reps, retryTasks: n } = ctx.profile;
  const results: RetryResults = { tasks: n, tasklane: [], powertools: [] };
  for (let rep = 0; rep < reps; rep++) {
    const order =
      rep % 2 === 0 ? (['tasklane', 'powertools'] as const) : (['powertools', 'tasklane'] as const);
    for (const system of order) {
      const run = await runEndToEnd(ctx, system, n, 'failOnce');
      results[system].push(run);
      ctx.log(
        `retries rep ${rep + 1}/${reps} ${system}: ${(run.consumer.elapsedMs / 1000).toFixed(2)} s`,
      );
    }
  }
  return results;
}
