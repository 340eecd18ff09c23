/**
 * Delayed tasks' one-time schedules in tests: whether one exists, and a Scheduler client whose
 * CreateSchedule waits at a gate (a slow call), for races between enqueues of one delayed task.
 */
import {
  GetScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { delayedScheduleName } from '../../src/scheduler/names.js';
import type { TestExecutor } from './executor.js';

/** Whether the delayed task `taskId` has its one-time schedule. */
export async function delayedScheduleExists(
  executor: TestExecutor,
  taskId: string,
): Promise<boolean> {
  try {
    await executor.clients.scheduler.send(
      new GetScheduleCommand({
        Name: delayedScheduleName(taskId),
        GroupName: executor.scheduler.delayedScheduleGroup,
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ResourceNotFoundException) return false;
    throw err;
  }
}

export interface HeldScheduler {
  readonly client: SchedulerClient;
  /** Lets the held CreateSchedule answer. */
  open(): void;
  /** Resolves once a CreateSchedule has reached the gate. */
  readonly reached: Promise<void>;
}

/**
 * A Scheduler client whose CreateSchedule waits until `open()`; then it fails (`outcome: 'fail'`,
 * throttled after the SDK's own retries) or goes through.
 */
export function heldScheduler(outcome: 'fail' | 'succeed'): HeldScheduler {
  let open = (): void => undefined;
  let arrive = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const reached = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const client = new SchedulerClient({ region: 'us-east-1' });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'CreateScheduleCommand') return next(args);
      arrive();
      await opened;
      if (outcome === 'fail') {
        throw Object.assign(new Error('Rate exceeded (injected)'), { name: 'ThrottlingException' });
      }
      return next(args);
    },
    { step: 'initialize', name: 'held-create-schedule' },
  );
  return { client, open, reached };
}
