/**
 * Parked ordering keys, seen from the client: listing them, and letting a key's held message
 * go, after moving its dead task (redriven in place, or given up on). The order of the three
 * steps is what keeps a racing worker's hold from hiding the message again for 12 hours
 * (see src/worker/parked.ts and docs/adr/0024-parked-keys.md).
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { TransitionRejectedError, ValidationError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
import { DEFAULT_LANE, type LaneQueues } from '../settings/lanes.js';
import { ParkedKeys, stillParks } from '../store/parked-keys.js';
import type { TaskStore } from '../store/task-store.js';

/** A parked ordering key and the DEAD task that holds it. */
export interface ParkedKey {
  readonly orderingKey: string;
  /**
   * The lane whose queue holds the key (undefined: the default lane). A key parked in two
   * lanes is listed once per lane: its tasks there are two FIFO groups in two queues.
   */
  readonly lane: string | undefined;
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
  /** The dead task given up on (the first, if the key was parked in several lanes). */
  readonly taskId: string | undefined;
  /** Every dead task given up on, one per lane the key was parked in. */
  readonly taskIds: readonly string[];
  /** Whether the key was parked and is now released (in every lane it was parked in). */
  readonly released: boolean;
}

/** Options of `TaskClient.releaseKey`. */
export interface ReleaseKeyOptions {
  /**
   * Release the key in this lane only (`'default'` for the default lane).
   * @default every lane the key is parked in
   */
  readonly lane?: string;
}

/** What these operations need from the client. */
export interface ParkDeps {
  readonly store: TaskStore;
  readonly sqs: SQSClient;
  readonly workQueueUrl: string;
  /** Every lane's queues: a parked task's held message is in its lane's queue. */
  readonly lanes?: LaneQueues | undefined;
  readonly logger: TaskLogger;
  /** Who acts, for the history and the audit line (docs/adr/0039-operator-audit.md). */
  readonly principal?: string | undefined;
}

/** Parked keys whose dead task still holds them, oldest park first. */
export async function listParkedKeys(store: TaskStore): Promise<ParkedKey[]> {
  // An item left by a purge, or by an interrupted redrive or release, is not a park any more.
  const parks = await store.feature(ParkedKeys).verified();
  return parks.map(({ park, task }) => {
    const { orderingKey, parkedAt, messageSentAt } = park;
    return { orderingKey, lane: laneOf(task), task, parkedAt, messageSentAt };
  });
}

const laneOf = (task: Pick<TaskRecord, 'lane'>): string | undefined =>
  task.lane === DEFAULT_LANE ? undefined : task.lane;

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
  restart = false,
): Promise<TaskRecord | undefined> {
  return letGo(task, deps, (seen, key) =>
    deps.store.feature(ParkedKeys).redrive(seen, key, reason, deps.principal, restart),
  );
}

/**
 * Gives up on a parked key's dead tasks, in every lane the key is parked in (or in
 * `options.lane` only): they stay DEAD and the key's later tasks proceed.
 */
export async function releaseParkedKey(
  orderingKey: string,
  deps: ParkDeps,
  options: ReleaseKeyOptions = {},
): Promise<ReleaseKeyResult> {
  if (typeof orderingKey !== 'string' || orderingKey === '') {
    throw new ValidationError('releaseKey', [
      {
        path: 'orderingKey',
        message: `expected a non-empty string, received ${JSON.stringify(orderingKey)}`,
      },
    ]);
  }
  const lanes = options.lane === undefined ? laneNames(deps) : [options.lane];
  if (deps.lanes !== undefined) for (const lane of lanes) deps.lanes.get(lane, 'releaseKey');
  const tasks = await parkedTasks(orderingKey, deps.store, lanes);
  const released: string[] = [];
  for (const task of tasks) {
    const moved = await letGo(task, deps, (seen, key) =>
      deps.store
        .feature(ParkedKeys)
        .release(seen, key, 'released by TaskClient.releaseKey', deps.principal),
    );
    if (moved !== undefined) released.push(task.id);
  }
  return {
    orderingKey,
    taskId: tasks[0]?.id,
    taskIds: released,
    released: tasks.length > 0 && released.length === tasks.length,
  };
}

/** The executor's lanes, the default one first. */
export function laneNames(deps: Pick<ParkDeps, 'lanes'>): string[] {
  return deps.lanes?.names() ?? [DEFAULT_LANE];
}

/**
 * The DEAD tasks that park `orderingKey` in `lanes`, found through their park items (read
 * consistently), one per lane at most.
 */
export async function parkedTasks(
  orderingKey: string,
  store: TaskStore,
  lanes: readonly string[],
): Promise<TaskRecord[]> {
  const found = await Promise.all(lanes.map((lane) => parkedTask(orderingKey, store, lane)));
  const byId = new Map<string, TaskRecord>();
  for (const task of found) if (task !== undefined) byId.set(task.id, task);
  return [...byId.values()];
}

/**
 * The receipt handle of the message that holds `task`'s key, from its park item (in the
 * task's lane; or, for a park held since before items had lanes, the default one's), if the
 * item is still that task's.
 */
export async function heldReceipt(task: TaskRecord, store: TaskStore): Promise<string | undefined> {
  const key = task.parkedKey;
  if (key === undefined) return undefined;
  const lane = laneOf(task);
  let park = await store.feature(ParkedKeys).get(key, lane);
  if (park === undefined && lane !== undefined) park = await store.feature(ParkedKeys).get(key);
  return park?.taskId === task.id ? park.receiptHandle : undefined;
}

/**
 * Deletes the held message of a parked task that was just purged. Left in its queue, it
 * would come back within 12 hours and claim any task enqueued under the same id meanwhile,
 * ahead of the key's tasks enqueued before that one (docs/adr/0044-purged-park-message.md);
 * deleted, it also no longer holds the key's later tasks back. Best effort: a handle that is
 * no longer valid (the message was received again since) leaves it to come back and meet
 * no task.
 */
export async function deleteHeld(
  deps: Pick<ParkDeps, 'sqs' | 'workQueueUrl' | 'lanes' | 'logger'>,
  receiptHandle: string,
  task: Pick<TaskRecord, 'id' | 'lane'>,
): Promise<void> {
  try {
    await deps.sqs.send(
      new DeleteMessageCommand({
        QueueUrl: deps.lanes?.has(task.lane) ? deps.lanes.queueUrl(task.lane) : deps.workQueueUrl,
        ReceiptHandle: receiptHandle,
      }),
    );
  } catch (err) {
    deps.logger.warn(
      "could not delete the purged task's held message; it returns within 12 hours",
      {
        taskId: task.id,
        error: (err as Error).message,
      },
    );
  }
}

/** The DEAD task that parks `orderingKey` in `lane`, found through its park item. */
export async function parkedTask(
  orderingKey: string,
  store: TaskStore,
  lane?: string,
): Promise<TaskRecord | undefined> {
  const park = await store.feature(ParkedKeys).get(orderingKey, lane);
  if (park === undefined) return undefined;
  const task = await store.get(park.taskId);
  if (stillParks(park, task)) return task;
  // Left by a purge, or an interrupted redrive or release: finish its cleanup.
  await store.feature(ParkedKeys).delete(orderingKey, park.taskId, lane);
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
  // The lane's item; or, for a park held since before items had lanes, the default one's.
  const lane = laneOf(task);
  let park = await deps.store.feature(ParkedKeys).get(key, lane);
  let itemLane = lane;
  if (park === undefined && lane !== undefined) {
    park = await deps.store.feature(ParkedKeys).get(key);
    itemLane = undefined;
  }
  if (park?.taskId === task.id) {
    await deps.store.feature(ParkedKeys).delete(key, task.id, itemLane);
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
