/**
 * What a feature scenario with durable waits needs beyond enqueue and drain (ADR 0048): the
 * schedule pump that stands in for EventBridge Scheduler's delivery of wake schedules, and
 * the observation of the wait itself, which checks that a suspended task costs nothing while
 * it waits.
 *
 * Neither is counted: the pump's requests are Scheduler's own delivery (billed as one
 * Scheduler invocation per wake on AWS, not as the user's requests), and the observer's
 * status counts are the bench's, not Tasklane's.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig, sqsClientConfig } from '../../src/aws/clients.js';
import { silentLogger, TaskClient, TaskStatus } from '../../src/index.js';
import { createSchedulePump, type ProvisionedScheduler } from '../../src/local/testing/index.js';
import type { RequestCounter, Tally } from '../lib/request-counter.js';
import { subtractTally } from '../lib/request-counter.js';
import type { Location } from './in-process.js';

/** How often the pump delivers what is due, and the observer looks. */
const TICK_MS = 500;

/** Runs the schedule pump over the executor's groups until stopped. */
export function runSchedulePump(scheduler: ProvisionedScheduler): () => void {
  // The emulator reports the signing key id as a message's SenderId: the pump signs as the
  // Scheduler roles the worker trusts (ADR 0036).
  const sender = (accessKeyId: string) =>
    new SQSClient({ ...sqsClientConfig(), credentials: { accessKeyId, secretAccessKey: 'x' } });
  const clients = {
    scheduler: new SchedulerClient(awsClientConfig()),
    sqs: sender(scheduler.schedulerSenderId),
    delayedSqs: sender(scheduler.delayedSchedulerSenderId),
  };
  const pump = createSchedulePump({
    ...clients,
    roles: { recurring: scheduler.schedulerRoleArn, delayed: scheduler.delayedSchedulerRoleArn },
    groupName: scheduler.scheduleGroup,
    logger: silentLogger,
  });
  let ticking = false;
  const timer = setInterval(() => {
    if (ticking) return;
    ticking = true;
    pump
      .tick()
      .catch(() => undefined)
      .finally(() => {
        ticking = false;
      });
  }, TICK_MS);
  return () => {
    clearInterval(timer);
    for (const c of Object.values(clients)) c.destroy();
  };
}

/** What was sent while every task of a scenario waited. */
export interface WaitWindow {
  /** How long every task was SUSPENDED at once while counted. */
  readonly ms: number;
  /** Tasks SUSPENDED at the window's start and at its end (the same when it is valid). */
  readonly suspendedAtStart: number;
  readonly suspendedAtEnd: number;
  /** Every request counted in the window, the event source mapping's idle receives included. */
  readonly tally: Tally;
  /** Handler invocations (Lambda) in the window. */
  readonly invocations: number;
}

/** What {@link observeWait} needs from the measurement. */
export interface WaitProbe {
  readonly location: Location;
  readonly counter: RequestCounter;
  /** Invocations so far. */
  invocations(): number;
  /** Invocations started and not yet returned. */
  inFlight(): number;
}

/**
 * Waits until `tasks` tasks are SUSPENDED and no invocation is in flight (an invocation that
 * suspended its tasks may still be handing their messages back: ADR 0067 sends early hand-backs
 * together, up to its batch's end), then counts the requests and invocations of the next
 * `windowMs`: a wait must send none (no Lambda, no polling) but the mapping's idle
 * receives, which it sends whether or not a task waits.
 *
 * @throws Error when the tasks are not all SUSPENDED within `timeoutMs`.
 */
export async function observeWait(
  probe: WaitProbe,
  tasks: number,
  windowMs: number,
  timeoutMs: number,
): Promise<WaitWindow> {
  const dynamodb = new DynamoDBClient(awsClientConfig());
  const sqs = new SQSClient(sqsClientConfig());
  const { tableName, queueUrl } = probe.location;
  const observer = new TaskClient({ tableName, queueUrl, dynamodb, sqs, logger: silentLogger });
  const suspended = async () => (await observer.counts()).byStatus[TaskStatus.SUSPENDED];
  try {
    const deadline = Date.now() + timeoutMs;
    let start = await suspended();
    while (start < tasks || probe.inFlight() > 0) {
      if (Date.now() > deadline) {
        throw new Error(
          `only ${start} of ${tasks} tasks SUSPENDED, ${probe.inFlight()} invocations in flight, after ${timeoutMs} ms`,
        );
      }
      await new Promise((r) => setTimeout(r, TICK_MS));
      start = await suspended();
    }
    const before = probe.counter.snapshot();
    const invoked = probe.invocations();
    const began = performance.now();
    await new Promise((r) => setTimeout(r, windowMs));
    const tally = subtractTally(probe.counter.snapshot(), before);
    const invocations = probe.invocations() - invoked;
    const ms = performance.now() - began;
    return { ms, suspendedAtStart: start, suspendedAtEnd: await suspended(), tally, invocations };
  } finally {
    dynamodb.destroy();
    sqs.destroy();
  }
}
