/**
 * One untimed cost measurement: provision an executor, enqueue a scenario's tasks with
 * `TaskClient`, drain them with the worker, and keep what each half cost, counted by the
 * bench (requests, units from item images, index writes by partition key) and metered by
 * Tasklane itself at run time (ADR 0025: the client's `costReport`, the worker's `usage`
 * metrics), so the two can be compared.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { awsClientConfig } from '../../src/aws/clients.js';
import type { TaskClient, TaskDefinition } from '../../src/index.js';
import { createExecutor } from '../lib/environment.js';
import { withImageUnits } from '../lib/image-meter.js';
import { EMPTY_SUFFIX, type Tally } from '../lib/request-counter.js';
import type { BenchContext } from './context.js';
import { benchWorker, countedClients, drain, usageRecorder } from './in-process.js';
import { observeWait, runSchedulePump, type WaitWindow } from './waits.js';

/** What a scenario enqueues and which task types the worker needs for it. */
export interface TaskSpec {
  /** Names the run in the log and the checks. */
  readonly label: string;
  /** Every task type the scenario's tasks use (the worker registers them). */
  readonly tasks: readonly TaskDefinition[];
  /** Enqueues the scenario for `n` and returns how many tasks it created. */
  enqueue(client: TaskClient, n: number): Promise<number>;
  /** @default 60; a short one lets failed messages come back quickly */
  readonly workerTimeoutSeconds?: number;
  /**
   * The stand-in Lambda's timeout, which also bounds each handler's (a task's own `timeout`
   * is cut to the invocation's remaining time). Raise it with the task's timeout for a
   * scenario whose batch does much work. @default 60
   */
  readonly invocationTimeoutSeconds?: number;
  /**
   * How long the drain may take per task beyond a minute's base: raise it for a scenario
   * whose tasks do much work each. @default 400
   */
  readonly drainMsPerTask?: number;
  /** Failed runs per task the scenario means to cause (each then retried). @default 0 */
  readonly failuresPerTask?: number;
  /**
   * Messages deleted per task by the time it finishes: 2 when its first message is
   * acknowledged before it ends (a sleep released to a wake schedule) or a second one is sent
   * (a resume). The drain ends when this many are deleted. @default 1
   */
  readonly messagesPerTask?: number;
  /**
   * Gives the worker scheduling settings (and runs the schedule pump that stands in for
   * Scheduler's delivery), with wake schedules for timers beyond `thresholdMs` (ADR 0048).
   */
  readonly scheduling?: { readonly thresholdMs: number };
  /**
   * A durable wait to observe (ADR 0048): once all the scenario's tasks are SUSPENDED, the
   * requests and invocations of the next `windowMs` are counted, then `after` runs on the
   * counted client (a signal to each, say), its requests counted with the worker's.
   */
  readonly wait?: {
    readonly windowMs: number;
    after?(client: TaskClient): Promise<void>;
  };
}

/** What Tasklane's own run-time meter reported for the same tasks. */
export interface Metered {
  /** Requests the producer's `costReport` priced. */
  readonly producerRequests: number;
  /** Requests the worker's usage metrics reported. */
  readonly workerRequests: number;
  readonly workerWriteUnits: number;
  readonly workerReadUnits: number;
  /** Tasks the worker's metrics counted (messages handled). */
  readonly workerTasks: number;
}

/** One measured run. */
export interface MeasuredTasks {
  /** Tasks created. */
  readonly tasks: number;
  /** The producer's requests, with DynamoDB write units from item images. */
  readonly produced: Tally;
  /** The worker's and the event source mapping's requests, likewise. */
  readonly consumed: Tally;
  /** Handler invocations (Lambda requests). */
  readonly invocations: number;
  /** Index write units and writes by partition key value, producer and worker together. */
  readonly indexUnitsByPartition: Record<string, number>;
  readonly indexWritesByPartition: Record<string, number>;
  readonly metered: Metered;
  /** With a `wait`: what was sent while every task waited. */
  readonly waitWindow?: WaitWindow;
}

const TIMEOUT_BASE_MS = 60_000;
const TIMEOUT_PER_TASK_MS = 400;

function add(into: Record<string, number>, more: Record<string, number>): void {
  for (const [k, v] of Object.entries(more)) into[k] = (into[k] ?? 0) + v;
}

/** Runs `spec` for `n` and checks that every task was created, run and deleted. */
export async function measureTasks(
  ctx: BenchContext,
  spec: TaskSpec,
  n: number,
): Promise<MeasuredTasks> {
  const scheduling = spec.scheduling === undefined ? {} : { scheduler: new SchedulerClient({}) };
  const executor = await createExecutor(
    { ...ctx.admin, ...scheduling },
    spec.label,
    spec.workerTimeoutSeconds ?? 60,
  );
  // A client of its own for the images: one that a TaskClient ever used carries Tasklane's
  // meter, which would count these reads as the producer's or the worker's.
  const reader = new DynamoDBClient(awsClientConfig());
  const c = await countedClients(executor, 'emulator', reader);
  try {
    const tasks = await spec.enqueue(c.client, n);
    const produced = withImageUnits(c.counter.snapshot(), c.images?.snapshot() ?? emptyImages());
    const indexUnits = { ...c.images?.snapshot().indexUnitsByPartition };
    const indexWrites = { ...c.images?.snapshot().indexWritesByPartition };
    const producerRequests = c.client.costReport().usage;
    c.counter.reset();
    c.images?.reset();
    const metrics = usageRecorder();
    const { scheduler } = executor;
    const worker = benchWorker(
      spec.tasks,
      executor,
      c,
      metrics,
      spec.scheduling === undefined || scheduler === undefined
        ? {}
        : {
            queueArn: executor.queueArn,
            scheduleGroup: scheduler.scheduleGroup,
            schedulerRoleArn: scheduler.schedulerRoleArn,
            delayedSchedulerRoleArn: scheduler.delayedSchedulerRoleArn,
            scheduleDeadLetterArn: scheduler.scheduleDeadLetterArn,
            schedulerSenderId: scheduler.schedulerSenderId,
            delayedSchedulerSenderId: scheduler.delayedSchedulerSenderId,
            scheduler: c.scheduler,
            scheduleThresholdMs: spec.scheduling.thresholdMs,
          },
    );
    let invoked = 0;
    let inFlight = 0;
    const handler: typeof worker = async (event, context) => {
      invoked += 1;
      inFlight += 1;
      try {
        return await worker(event, context);
      } finally {
        inFlight -= 1;
      }
    };
    const stopPump = scheduler === undefined ? () => undefined : runSchedulePump(scheduler);
    const drainMs = TIMEOUT_BASE_MS + tasks * (spec.drainMsPerTask ?? TIMEOUT_PER_TASK_MS);
    const { wait } = spec;
    const watching =
      wait === undefined
        ? undefined
        : observeWait(
            {
              location: executor,
              counter: c.counter,
              invocations: () => invoked,
              inFlight: () => inFlight,
            },
            tasks,
            wait.windowMs,
            drainMs,
          ).then(async (window) => {
            await wait.after?.(c.client);
            return window;
          });
    // A failed observation must not leave the drain waiting for wakes that never come.
    watching?.catch(() => undefined);
    const run = await drain(
      c.sqs,
      executor.queueUrl,
      tasks * (spec.messagesPerTask ?? 1),
      handler,
      {
        batchSize: ctx.profile.batchSize,
        concurrency: ctx.profile.concurrency,
        timeoutMs: drainMs,
        ...(spec.invocationTimeoutSeconds === undefined
          ? {}
          : { invocationTimeoutSeconds: spec.invocationTimeoutSeconds }),
      },
    ).finally(stopPump);
    const waitWindow = await watching?.catch((err: unknown) => {
      ctx.log(`${spec.label}: the wait was not observed: ${String(err)}`);
      return undefined;
    });
    if (wait !== undefined)
      ctx.checks.equal(`${spec.label}: wait observed`, waitWindow !== undefined, true);
    const images = c.images?.snapshot() ?? emptyImages();
    add(indexUnits, images.indexUnitsByPartition);
    add(indexWrites, images.indexWritesByPartition);
    ctx.checks.equal(`${spec.label}: tasks created`, tasks > 0, true);
    ctx.checks.equal(`${spec.label}: finished in time`, run.timedOut, false);
    ctx.checks.equal(
      `${spec.label}: messages deleted`,
      run.deleted,
      tasks * (spec.messagesPerTask ?? 1),
    );
    if (waitWindow !== undefined) {
      // A valid window: every task waited throughout it, and nothing ran or polled for them.
      ctx.checks.equal(
        `${spec.label}: all waiting at the window's end`,
        waitWindow.suspendedAtEnd,
        tasks,
      );
      ctx.checks.equal(`${spec.label}: invocations while waiting`, waitWindow.invocations, 0);
      ctx.checks.equal(
        `${spec.label}: requests while waiting (idle receives aside)`,
        requestsWhileWaiting(waitWindow),
        0,
      );
    }
    // The figures are of the runs the scenario means: a run that timed out or failed
    // otherwise adds a retry's requests (and a slow emulator can cause one).
    ctx.checks.equal(`${spec.label}: runs succeeded`, metrics.outcomes.succeeded ?? 0, tasks);
    ctx.checks.equal(
      `${spec.label}: runs failed`,
      metrics.outcomes.failed ?? 0,
      tasks * (spec.failuresPerTask ?? 0),
    );
    return {
      tasks,
      produced,
      consumed: withImageUnits(c.counter.snapshot(), images),
      invocations: run.invocations,
      indexUnitsByPartition: indexUnits,
      indexWritesByPartition: indexWrites,
      metered: {
        producerRequests: producerRequests.sqsRequests + producerRequests.dynamodbRequests,
        workerRequests: metrics.total.sqsRequests + metrics.total.dynamodbRequests,
        workerWriteUnits: metrics.total.writeUnits,
        workerReadUnits: metrics.total.readUnits,
        workerTasks: metrics.tasks,
      },
      ...(waitWindow === undefined ? {} : { waitWindow }),
    };
  } finally {
    c.destroy();
    reader.destroy();
    scheduling.scheduler?.destroy();
    await executor.destroy();
  }
}

/** Requests in a wait's window other than the event source mapping's idle receives. */
export function requestsWhileWaiting(window: WaitWindow): number {
  return Object.entries(window.tally)
    .filter(([key]) => !key.endsWith(EMPTY_SUFFIX))
    .reduce((sum, [, t]) => sum + t.requests, 0);
}

function emptyImages() {
  return { byOperation: {}, indexUnitsByPartition: {}, indexWritesByPartition: {} };
}
