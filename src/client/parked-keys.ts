/**
 * Parked ordering keys, seen from the client: listing them, and letting a key's held message
 * go, after moving its dead task (redriven in place, or given up on). The order of the three
 * steps is what keeps a racing worker's hold from hiding the message again for 12 hours
 * (see src/worker/parked.ts and docs/adr/0024-parked-keys.md).
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { TaskStatus } from '../constants.js';
import { TransitionRejectedError, ValidationError } from '../errors.js';
import type { LaneQueues } from '../lanes.js';
import type { TaskLogger } from '../observability/logger.js';
import type { TaskRecord } from '../store/record.js';
import type { TaskStore } from '../store/task-store.js';

/** A parked ordering key and the DEAD task that holds it. */
export interface ParkedKey {
  readonly orderingKey: string;
  /** The DEAD task whose message holds the key. */
  readonly task: TaskRecord;
  /** When it died and parked the key (epoch ms). */
  readonly parkedAt: number;
  /**
   * When its message was first sent (epoch ms), once a worker has held it: SQS deletes the
   * message one queue retention period later (14 days by default), which ends the hold.
   */
  readonly messageSentAt: number | undefined;
}

/** What `TaskClient.releaseKey` did. */
export interface ReleaseKeyResult {
  readonly orderingKey: string;
  /** The dead task given up on; undefined when the key was not parked. */
  readonly taskId: string | undefined;
  /** Whether the key was parked and is now released. */
  readonly released: boolean;
}

/** What these operations need from the client. */
export interface ParkDeps {
  readonly store: TaskStore;
  readonly sqs: SQSClient;
  readonly workQueueUrl: string;
  /** Every lane's queues: a parked task's held message is in its lane's queue. */
  readonly lanes?: LaneQueues | undefined;
  readonly logger: TaskLogger;
}

/** Parked keys whose dead task still holds them, oldest park first. */
export async function listParkedKeys(store: TaskStore): Promise<ParkedKey[]> {
  const parks = await store.parkedKeys.list();
  const tasks = await Promise.all(parks.map((park) => store.get(park.taskId)));
  return parks.flatMap((park, i) => {
    const task = tasks[i];
    // An item left by an interrupted redrive or release is not a park any more.
    if (task?.status !== TaskStatus.DEAD || task.parkedKey !== park.orderingKey) return [];
    const { orderingKey, parkedAt, messageSentAt } = park;
    return [{ orderingKey, task, parkedAt, messageSentAt }];
  });
}

/**
 * Redrives a parked task in place (DEAD → QUEUED, no new message) and lets its held message
 * go: it runs first, then the key's later tasks, in order.
 *
 * @returns the redriven record; undefined when another caller moved the task first.
 */
export function redriveParkedTask(
  task: TaskRecord,
  deps: ParkDeps,
  reason: string,
): Promise<TaskRecord | undefined> {
  return letGo(task, deps, (seen, key) => deps.store.redriveParked(seen, key, reason));
}

/** Gives up on a parked key's dead task: it stays DEAD and the key's later tasks proceed. */
export async function releaseParkedKey(
  orderingKey: string,
  deps: ParkDeps,
): Promise<ReleaseKeyResult> {
  if (typeof orderingKey !== 'string' || orderingKey === '') {
    throw new ValidationError('releaseKey', [
      {
        path: 'orderingKey',
        message: `expected a non-empty string, received ${JSON.stringify(orderingKey)}`,
      },
    ]);
  }
  const task = await parkedTask(orderingKey, deps.store);
  if (task === undefined) return { orderingKey, taskId: undefined, released: false };
  const moved = await letGo(task, deps, (seen, key) =>
    deps.store.releaseKey(seen, key, 'released by TaskClient.releaseKey'),
  );
  return { orderingKey, taskId: task.id, released: moved !== undefined };
}

/** The DEAD task that parks `orderingKey`, found through its park item. */
export async function parkedTask(
  orderingKey: string,
  store: TaskStore,
): Promise<TaskRecord | undefined> {
  const park = await store.parkedKeys.get(orderingKey);
  if (park === undefined) return undefined;
  const task = await store.get(park.taskId);
  if (task?.status === TaskStatus.DEAD && task.parkedKey === orderingKey) return task;
  // Left by an interrupted redrive or release: finish its cleanup.
  await store.parkedKeys.delete(orderingKey, park.taskId);
  return undefined;
}

/**
 * Moves the parked task first, then drops the park item, then makes the held message
 * visible: a worker holding the message meanwhile either loses its park write or, reading
 * the task again after hiding the message, shows it again itself.
 */
async function letGo(
  task: TaskRecord,
  deps: ParkDeps,
  move: (seen: TaskRecord, key: string) => Promise<TaskRecord>,
): Promise<TaskRecord | undefined> {
  const key = task.parkedKey;
  if (key === undefined) return undefined;
  let moved: TaskRecord | undefined;
  try {
    moved = await move(task, key);
  } catch (err) {
    if (!(err instanceof TransitionRejectedError)) throw err;
    return undefined;
  }
  const park = await deps.store.parkedKeys.get(key);
  if (park?.taskId === task.id) {
    await deps.store.parkedKeys.delete(key, task.id);
    if (park.receiptHandle !== undefined) await show(deps, park.receiptHandle, task);
  }
  return moved;
}

/**
 * Makes the held message visible now. Best effort: a handle that is no longer valid (the
 * message was received again since) leaves it to come back within its 12-hour hold.
 */
async function show(
  deps: ParkDeps,
  receiptHandle: string,
  task: Pick<TaskRecord, 'id' | 'lane'>,
): Promise<void> {
  const taskId = task.id;
  try {
    await deps.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: deps.lanes?.has(task.lane) ? deps.lanes.queueUrl(task.lane) : deps.workQueueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: 0,
      }),
    );
  } catch (err) {
    deps.logger.warn('could not release the held message at once; it returns within 12 hours', {
      taskId,
      error: (err as Error).message,
    });
  }
}
