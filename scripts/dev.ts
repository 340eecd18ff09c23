/**
 * `npm run dev`: Tasklane end to end on a local emulator.
 *
 * Starts moto_server (or uses AWS_ENDPOINT_URL), provisions the executor from the same
 * settings as the CDK construct, enqueues a demo workload, runs the worker's Lambda handler
 * behind a local stand-in for the SQS event source mapping, shows progress, and checks the
 * outcome: every task terminal, only the poison task DEAD, and per-key order kept. Exits 0
 * only if all of that holds. The emulator is always stopped, Ctrl-C included.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import pLimit from 'p-limit';
import { TaskClient, type TaskRecord } from '../src/index.js';
import {
  type EmulatorHandle,
  emulatorEnvironment,
  provision,
  startEmulator,
} from '../src/local/index.js';
import { executorSettings } from '../src/resources.js';
import { demoTasks } from './dev/demo-tasks.js';
import { type FileLogger, jsonLinesLogger } from './dev/file-logger.js';
import { progressView, watchUntilFinished } from './dev/progress.js';
import { buildReport } from './dev/report.js';
import { startWorker } from './dev/run-worker.js';
import { awaitScheduled, scheduleDemoWork, scheduledReport, startPump } from './dev/scheduled.js';
import { StartLog } from './dev/start-log.js';
import { TerminalTracker } from './dev/terminal-tracker.js';
import { keyedSequences, type PlannedTask, planWorkload } from './dev/workload.js';

const WORKLOAD = { tasks: 200, keys: 5 } as const;
const RUN_TIMEOUT_MS = 120_000;
const STATE_DIR = '.tasklane';

/** What the run needs from setup. */
interface Session {
  readonly name: string;
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  readonly scheduler: SchedulerClient;
  readonly logger: FileLogger;
  readonly interrupt: AbortSignal;
}

/** Delayed tasks within this are sent at once; the demo's delays of seconds use Scheduler. */
const SCHEDULE_THRESHOLD_MS = 1_000;
/** How long after its due time the demo waits for the last scheduled task. */
const SCHEDULED_GRACE_MS = 15_000;

async function main(interrupt: AbortSignal): Promise<number> {
  await mkdir(STATE_DIR, { recursive: true });
  const name = `tasklane-dev-${randomBytes(4).toString('hex')}`;
  const logger = jsonLinesLogger(path.join(STATE_DIR, `${name}.log`));
  let emulator: EmulatorHandle | undefined;
  let clients: { sqs: SQSClient; dynamodb: DynamoDBClient; scheduler: SchedulerClient } | undefined;
  try {
    let endpoint = process.env.AWS_ENDPOINT_URL;
    if (endpoint) {
      assertNotAws(endpoint);
      console.log(`  emulator   ${endpoint} (from AWS_ENDPOINT_URL; resources are left in place)`);
    } else {
      const log = path.join(STATE_DIR, `${name}.moto.log`);
      emulator = await startEmulator({ log });
      endpoint = emulator.endpoint;
      console.log(`  emulator   moto_server at ${endpoint} (log: ${log})`);
    }
    interrupt.throwIfAborted();
    Object.assign(process.env, emulatorEnvironment(endpoint));
    clients = {
      // Never follow a queue URL to its host: the emulator reports AWS's.
      sqs: new SQSClient({ useQueueUrlAsEndpoint: false }),
      dynamodb: new DynamoDBClient({}),
      scheduler: new SchedulerClient({}),
    };
    return await run({ name, ...clients, logger, interrupt });
  } finally {
    clients?.sqs.destroy();
    clients?.dynamodb.destroy();
    clients?.scheduler.destroy();
    await emulator?.stop();
    await logger.close();
  }
}

async function run(session: Session): Promise<number> {
  const { name, sqs, dynamodb, scheduler, logger, interrupt } = session;
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
  const definitions = Object.values(tasks);
  const settings = executorSettings({
    name,
    workerTimeoutSeconds: 30,
    maxAttempts: Math.max(...definitions.map((d) => d.retry.maxAttempts)),
  });
  const executor = await provision(settings, { sqs, dynamodb, scheduler });
  const location = { tableName: executor.tableName, queueUrl: executor.queueUrl };
  console.log(`  resources  queue ${settings.workQueue.name}, table ${executor.tableName}`);
  console.log(
    `             schedule group ${settings.scheduler.groupName}, delivered by the local pump`,
  );
  console.log(`  audit log  ${logger.path}\n`);
  interrupt.throwIfAborted();

  // The worker runs while the producer enqueues, as it would in an account.
  const plan = planWorkload(tasks, WORKLOAD);
  const client = new TaskClient({
    ...location,
    ...executor.scheduler,
    queueArn: executor.queueArn,
    sqs,
    dynamodb,
    scheduler,
    logger,
    scheduleThresholdMs: SCHEDULE_THRESHOLD_MS,
  });
  tracker = new TerminalTracker(
    client,
    plan.map((t) => t.id),
  );
  const worker = startWorker(session, definitions, location);
  const pump = startPump({ scheduler, sqs, logger }, settings.scheduler.groupName);
  try {
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
        signal: AbortSignal.any([interrupt, worker.failed]),
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
        .join(
          ', ',
        )}) and ${scheduled.recurring.name} ${scheduled.recurring.expression}; waiting...`,
    );
    const lastDue = Math.max(scheduled.recurring.dueAt, ...scheduled.delayed.map((d) => d.dueAt));
    const scheduledRecords = await awaitScheduled(client, scheduled, {
      deadline: lastDue + SCHEDULED_GRACE_MS,
      signal: AbortSignal.any([interrupt, worker.failed]),
    });
    await client.unschedule(scheduled.recurring.name);
    const report = buildReport({
      plan,
      records: await readAll(client, plan),
      order: startLog.verify(keyedSequences(plan)),
      enqueueMs: startedAt - enqueuedAt,
      processingMs,
      invocations: worker.invocations,
      scheduled: scheduledReport(scheduled, scheduledRecords),
    });
    console.log(`\n${report.lines.join('\n')}`);
    for (const problem of report.problems.slice(0, 20)) console.error(`  problem: ${problem}`);
    return report.passed ? 0 : 1;
  } finally {
    await pump.stop();
    await worker.stop();
  }
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

/** The demo uses dummy credentials; refuse to point them at a real AWS endpoint. */
function assertNotAws(endpoint: string): void {
  if (/(^|\.)amazonaws\.com(\.cn)?$/i.test(new URL(endpoint).hostname)) {
    throw new Error(
      `AWS_ENDPOINT_URL=${endpoint} is a real AWS endpoint; the demo needs an emulator`,
    );
  }
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
