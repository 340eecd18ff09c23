/**
 * `npm run dev`: Tasklane end to end on a local emulator.
 *
 * `startLocalExecutor` starts moto_server (MiniStack with TASKLANE_EMULATOR=ministack; or
 * uses AWS_ENDPOINT_URL), provisions the
 * executor from the same settings as the CDK construct, and runs the worker's Lambda handler
 * behind a local stand-in for the SQS event source mapping, the schedule pump and the
 * sweeper. The demo enqueues a workload, shows progress, and checks the outcome: every task
 * terminal, only the poison task DEAD, and per-key order kept. Exits 0 only if all of that
 * holds. The emulator is always stopped, Ctrl-C included.
 */
import { randomBytes } from 'node:crypto';
import pLimit from 'p-limit';
import type { TaskClient, TaskRecord } from '../src/index.js';
import { type LocalExecutor, startLocalExecutor } from '../src/local/index.js';
import { demoTasks } from './dev/demo-tasks.js';
import { progressView, watchUntilFinished } from './dev/progress.js';
import { buildReport } from './dev/report.js';
import { awaitScheduled, scheduleDemoWork, scheduledReport } from './dev/scheduled.js';
import { StartLog } from './dev/start-log.js';
import { TerminalTracker } from './dev/terminal-tracker.js';
import { keyedSequences, type PlannedTask, planWorkload } from './dev/workload.js';

const WORKLOAD = { tasks: 200, keys: 5 } as const;
const RUN_TIMEOUT_MS = 120_000;

/** Delayed tasks within this are sent at once; the demo's delays of seconds use Scheduler. */
const SCHEDULE_THRESHOLD_MS = 1_000;
/** How long after its due time the demo waits for the last scheduled task. */
const SCHEDULED_GRACE_MS = 15_000;
/** The pump's tick: delayed tasks run within about this of their due time. */
const PUMP_INTERVAL_MS = 250;

async function main(interrupt: AbortSignal): Promise<number> {
  const startLog = new StartLog();
  let tracker: TerminalTracker | undefined;
  const tasks = demoTasks({
    onStart: (trace, ctx) => {
      const settled = startLog.begin(trace, ctx.attempt);
      return () => {
        settled();
        tracker?.touch(ctx.taskId);
      };
    },
  });
  const invocations = { batches: 0, failedWhole: 0 };
  const name = `tasklane-dev-${randomBytes(4).toString('hex')}`;
  const executor = await startLocalExecutor({
    tasks: Object.values(tasks),
    name,
    // The audit log goes to .tasklane/<name>.log; the terminal keeps the progress bar.
    log: 'file',
    workerTimeoutSeconds: 30,
    batchSize: 10,
    maximumConcurrency: 2,
    pumpIntervalMs: PUMP_INTERVAL_MS,
    client: { scheduleThresholdMs: SCHEDULE_THRESHOLD_MS },
    onBatch: (summary) => {
      invocations.batches += 1;
      if (summary.batchError !== undefined) invocations.failedWhole += 1;
    },
  });
  try {
    describeSetup(executor, name);
    interrupt.throwIfAborted();
    const plan = planWorkload(tasks, WORKLOAD);
    tracker = new TerminalTracker(
      executor.client,
      plan.map((t) => t.id),
    );
    return await run({ executor, plan, tracker, startLog, invocations, tasks, interrupt });
  } finally {
    await executor.stop();
  }
}

function describeSetup(executor: LocalExecutor, name: string): void {
  const { emulator, endpoint, location } = executor;
  console.log(
    emulator === undefined
      ? `  emulator   ${endpoint} (from AWS_ENDPOINT_URL; resources are left in place)`
      : `  emulator   ${emulator.engine} at ${endpoint} (log: .tasklane/${name}.${emulator.engine}.log)`,
  );
  console.log(
    `  resources  queue ${location.queueUrl.split('/').pop()}, table ${location.tableName}`,
  );
  console.log(`             schedule group ${location.scheduleGroup}, delivered by the local pump`);
  console.log(`  audit log  ${executor.logFile}\n`);
  console.log('Worker: createWorker(...).lambdaHandler behind the local event source mapping');
  console.log('(batch size 10, maximum concurrency 2, timeout 30 s), with the sweeper every 5 s\n');
}

/** What one run works with. */
interface Run {
  readonly executor: LocalExecutor;
  readonly plan: readonly PlannedTask[];
  readonly tracker: TerminalTracker;
  readonly startLog: StartLog;
  readonly invocations: { batches: number; failedWhole: number };
  readonly tasks: ReturnType<typeof demoTasks>;
  readonly interrupt: AbortSignal;
}

async function run(session: Run): Promise<number> {
  const { executor, plan, tracker, startLog, invocations, tasks, interrupt } = session;
  const { client } = executor;
  const stopped = AbortSignal.any([interrupt, executor.failed]);
  const flaky = plan.filter((t) => t.failTimes > 0).length;
  process.stdout.write(
    `Enqueueing ${plan.length} tasks (${WORKLOAD.keys} ordering keys, ${flaky} flaky, 1 poison)... `,
  );
  const enqueuedAt = Date.now();
  const results = await client.enqueueBatch(plan.map((t) => t.entry));
  const unsent = results.filter((r) => !r.ok || !r.sent);
  console.log(`${seconds(Date.now() - enqueuedAt)} s`);
  if (unsent.length > 0) {
    for (const r of unsent) {
      console.error(r.ok ? `  ${r.id} stored but not sent` : `  failed: ${r.error.message}`);
    }
    return 1;
  }
  interrupt.throwIfAborted();
  const startedAt = Date.now();
  const view = progressView(process.stdout, startedAt);
  let finished: boolean;
  try {
    finished = await watchUntilFinished(tracker, view, {
      deadline: startedAt + RUN_TIMEOUT_MS,
      signal: stopped,
    });
  } finally {
    view.finish();
  }
  const processingMs = Date.now() - startedAt;
  if (!finished) {
    await reportStuck(client, tracker.pending());
    return 1;
  }
  // Delayed and recurring work once the backlog has drained, so lateness measures the
  // pump and the worker, not the 200 messages queued ahead.
  const scheduled = await scheduleDemoWork(client, tasks);
  console.log(
    `\nScheduled ${scheduled.delayed.length} delayed tasks (due in ${scheduled.delayed
      .map((d) => `${((d.dueAt - Date.now()) / 1000).toFixed(0)} s`)
      .join(', ')}) and ${scheduled.recurring.name} ${scheduled.recurring.expression}; waiting...`,
  );
  const lastDue = Math.max(scheduled.recurring.dueAt, ...scheduled.delayed.map((d) => d.dueAt));
  const scheduledRecords = await awaitScheduled(client, scheduled, {
    deadline: lastDue + SCHEDULED_GRACE_MS,
    signal: stopped,
  });
  await client.schedules.delete(scheduled.recurring.name);
  const report = buildReport({
    plan,
    records: await readAll(client, plan),
    order: startLog.verify(keyedSequences(plan)),
    enqueueMs: startedAt - enqueuedAt,
    processingMs,
    invocations,
    scheduled: scheduledReport(scheduled, scheduledRecords),
  });
  console.log(`\n${report.lines.join('\n')}`);
  for (const problem of report.problems.slice(0, 20)) console.error(`  problem: ${problem}`);
  return report.passed ? 0 : 1;
}

/** Reads every planned task's record with a strongly consistent read. */
async function readAll(
  client: TaskClient,
  plan: readonly PlannedTask[],
): Promise<Map<string, TaskRecord | undefined>> {
  const limit = pLimit(8);
  const entries = await Promise.all(
    plan.map((t) => limit(async () => [t.id, await client.get(t.id)] as const)),
  );
  return new Map(entries);
}

async function reportStuck(client: TaskClient, ids: readonly string[]): Promise<void> {
  console.error(`\nTimed out after ${RUN_TIMEOUT_MS / 1000} s; ${ids.length} tasks not terminal:`);
  for (const id of ids.slice(0, 20)) {
    const r = await client.get(id);
    const key = r?.orderingKey === undefined ? '' : `, key ${r.orderingKey}`;
    const error = r?.lastError === undefined ? '' : `, last error: ${r.lastError.message}`;
    console.error(`  ${id}: ${r?.status ?? 'missing'}, attempt ${r?.attempt ?? 0}${key}${error}`);
  }
  if (ids.length > 20) console.error(`  ... and ${ids.length - 20} more`);
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

const interrupt = new AbortController();
const onSignal = (signal: NodeJS.Signals): void => {
  // A second Ctrl-C leaves at once; startEmulator's exit hook still kills moto_server.
  if (interrupt.signal.aborted) process.exit(130);
  process.stderr.write(`\n${signal}: stopping the worker and the emulator...\n`);
  interrupt.abort(new Error(`interrupted by ${signal}`));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

console.log('Tasklane dev: the worker and SDK end to end on a local AWS emulator\n');
try {
  process.exitCode = await main(interrupt.signal);
} catch (err) {
  if (interrupt.signal.aborted) {
    console.error('Interrupted; everything this run started has been stopped.');
    process.exitCode = 130;
  } else {
    console.error(
      `\ndev failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    process.exitCode = 1;
  }
} finally {
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}
