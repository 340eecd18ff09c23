/**
 * Enqueue throughput, end-to-end processing and scaling, measured together: at each size,
 * each repetition runs every system once, in a rotating order so that no system always runs
 * first. Tasklane and the raw baseline run at every size; the Powertools baseline at one.
 */
import type { BenchContext } from './context.js';
import { type EndToEndRun, runEndToEnd, type System } from './end-to-end.js';

/** Every repetition of every system at every size. */
export interface ThroughputResults {
  readonly sizes: readonly number[];
  readonly powertoolsSize: number;
  /** runs[system][size] holds one run per repetition, in order. */
  readonly runs: Readonly<Record<System, Record<number, EndToEndRun[]>>>;
}

/** Runs the interleaved repetitions. */
export async function runThroughput(ctx: BenchContext): Promise<ThroughputResults> {
  const { sizes, powertoolsSize, reps } = ctx.profile;
  const runs: Record<System, Record<number, EndToEndRun[]>> = {
    tasklane: {},
    raw: {},
    powertools: {},
  };
  for (let rep = 0; rep < reps; rep++) {
    for (const n of sizes) {
      const systems: System[] =
        n === powertoolsSize ? ['raw', 'tasklane', 'powertools'] : ['raw', 'tasklane'];
      for (let k = 0; k < systems.length; k++) {
        const system = systems[(k + rep) % systems.length] as System;
        const run = await runEndToEnd(ctx, system, n);
        runs[system][n] ??= [];
        runs[system][n].push(run);
        ctx.log(
          `throughput rep ${rep + 1}/${reps} n=${n} ${system}: enqueue ${seconds(run.enqueue.ms)}, process ${seconds(run.consumer.elapsedMs)}`,
        );
      }
    }
  }
  return { sizes, powertoolsSize, runs };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
