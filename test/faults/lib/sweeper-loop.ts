/** The sweeper run in a loop beside a scenario's workers, as its schedule would run it. */
import { silentLogger, type TaskLogger } from '../../../src/observability/logger.js';
import { noopMetrics } from '../../../src/observability/metrics.js';
import { createSweeper } from '../../../src/sweeper/create-sweeper.js';
import type { SweepReport } from '../../../src/sweeper/sweeper.js';
import type { AwsClients } from '../../helpers/aws.js';
import type { EmulatorExecutor } from '../../helpers/executor.js';
import { sleep } from './random.js';

/** A sweeper run in a loop, as the scheduled Lambda would run it (but every few hundred ms). */
export interface SweeperLoop {
  readonly stats: {
    runs: number;
    errors: number;
    requeued: number;
    killed: number;
    sent: number;
    /** Overdue QUEUED tasks sent again under a new generation (message past retention). */
    resent: number;
    /** Dependents released by the sweep for parents whose own release was cut short. */
    released: number;
    /** SUSPENDED tasks whose lost wake the sweep repaired. */
    woken: number;
    /** The longest sweep, in ms. */
    longestMs: number;
  };
  /** Runs one sweep now (between the loop's own runs). */
  runOnce(): Promise<SweepReport | undefined>;
  stop(): Promise<void>;
}

export function startSweeperLoop(
  executor: EmulatorExecutor,
  options: {
    intervalMs: number;
    pendingAgeMs: number;
    clients?: AwsClients;
    logger?: TaskLogger;
    clock?: () => number;
    /** A QUEUED task this long overdue is sent again (the sweeper's default is 6 h). */
    queuedOverdueMs?: number;
    /** A finished task's release this old is finished by the sweep (the default is 60 s). */
    releaseGraceMs?: number;
    /** A SUSPENDED task due and unclaimed this long has its wake repaired (default 30 s). */
    suspendedGraceMs?: number;
  },
): SweeperLoop {
  const clients = options.clients ?? executor.clients;
  const sweeper = createSweeper({
    tableName: executor.tableName,
    queueUrl: executor.queueUrl,
    ...clients,
    ...(executor.scheduler === undefined || executor.clients.scheduler === undefined
      ? {}
      : {
          queueArn: executor.queueArn,
          scheduleGroup: executor.scheduler.scheduleGroup,
          schedulerRoleArn: executor.scheduler.schedulerRoleArn,
          scheduleDeadLetterArn: executor.scheduler.scheduleDeadLetterArn,
          scheduler: executor.clients.scheduler,
        }),
    logger: options.logger ?? silentLogger,
    metrics: noopMetrics,
    pendingAgeMs: options.pendingAgeMs,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.queuedOverdueMs === undefined ? {} : { queuedOverdueMs: options.queuedOverdueMs }),
    ...(options.releaseGraceMs === undefined ? {} : { releaseGraceMs: options.releaseGraceMs }),
    ...(options.suspendedGraceMs === undefined
      ? {}
      : { suspendedGraceMs: options.suspendedGraceMs }),
  });
  const stats = {
    runs: 0,
    errors: 0,
    requeued: 0,
    killed: 0,
    sent: 0,
    resent: 0,
    released: 0,
    woken: 0,
    longestMs: 0,
  };
  let chain: Promise<unknown> = Promise.resolve();
  const runOnce = (): Promise<SweepReport | undefined> => {
    const run = chain.then(async () => {
      const started = Date.now();
      try {
        const report = await sweeper.run();
        stats.longestMs = Math.max(stats.longestMs, Date.now() - started);
        stats.woken += (report as { woken?: number }).woken ?? 0;
        stats.runs += 1;
        stats.requeued += report.requeued;
        stats.killed += report.killed;
        stats.sent += report.sent;
        stats.resent += (report as { resent?: number }).resent ?? 0;
        stats.released += report.released;
        return report;
      } catch {
        // A throttled or failed sweep is retried by the next run, as the schedule would.
        stats.errors += 1;
        return undefined;
      }
    });
    chain = run;
    return run;
  };
  const controller = new AbortController();
  const loop = (async () => {
    while (!controller.signal.aborted) {
      await runOnce();
      await sleep(options.intervalMs, controller.signal);
    }
  })();
  return {
    stats,
    runOnce,
    stop: async () => {
      controller.abort();
      await loop;
    },
  };
}
