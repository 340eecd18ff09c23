/**
 * The park items: one per parked ordering key, beside the tasks in the same table. An item
 * is an index entry, not the source of truth: the dead task's record (`parkedKey`) says the
 * key is parked, and the task's message, kept in flight at the head of the key's FIFO group,
 * holds it. The item makes parked keys listable without a Scan (through the status index,
 * under a partition of its own) and carries the receipt handle an operator's redrive or
 * release needs to let that message go at once (docs/adr/0024-parked-keys.md).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Defaults, TableSchema, TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import { DEFAULT_LANE } from '../settings/lanes.js';
import { getItems } from './batch-get.js';
import { fromItem } from './record.js';
import { entryId, partitionPages } from './status-index.js';
import type { WriteContext } from './store-context.js';
import * as durable from './transitions/durable.js';
import { writeTransition } from './transitions/move.js';
import * as parking from './transitions/parking.js';
import type { Seen } from './transitions/row.js';
import { part, send, transact } from './transitions/writer.js';

/** A parked ordering key, as its park item records it. */
export interface ParkRecord {
  readonly orderingKey: string;
  /**
   * The lane whose queue holds the key's group (absent: the default lane). A key's tasks in
   * two lanes are two FIFO groups in two queues, parked and released one by one.
   */
  readonly lane: string | undefined;
  /**
   * Written before park items had lanes: it lies under the default lane's name whatever the
   * lane of its task, which alone says whose park it is.
   */
  readonly beforeLanes: boolean;
  /** The DEAD task whose message holds the key. */
  readonly taskId: string;
  readonly taskType: string;
  /** When the task died and parked the key (epoch ms). */
  readonly parkedAt: number;
  /**
   * When a worker last held the message (epoch ms): it comes back every 12 hours while it
   * lives, and each hold writes the item again, so an item older than that outlived its hold.
   */
  readonly heldAt: number;
  /** The held message's latest receipt handle, once a worker has held it. */
  readonly receiptHandle: string | undefined;
  /** The queue the held message is in. */
  readonly queueArn: string | undefined;
  /**
   * When the held message was first sent (epoch ms): SQS deletes it a retention period
   * later, and the key is then no longer held.
   */
  readonly messageSentAt: number | undefined;
}

/**
 * The partition key prefix of park items. It ends with a space, which no task id can hold
 * (ids are printable ASCII without spaces), so a park item never collides with a task.
 */
const PREFIX = 'parked-key ';
/** The status index partition all park items share; parking is rare, so one is enough. */
const INDEX_PARTITION = 'PARKED_KEY';

/**
 * The item of `orderingKey` in `lane`. The default lane's item keeps the name it had before
 * lanes (`parked-key <key>`), so items in deployed tables still read as that lane's; another
 * lane's adds the lane after a second space, which no key can hold, so no two collide.
 */
const keyOf = (orderingKey: string, lane: string | undefined) => ({
  [TableSchema.PARTITION_KEY]:
    lane === undefined || lane === DEFAULT_LANE
      ? `${PREFIX}${orderingKey}`
      : `${PREFIX}${orderingKey} ${lane}`,
});

/** The held message of a parked task, as the worker that holds it sees it. */
export interface HeldParkMessage {
  readonly receiptHandle: string;
  readonly queueArn: string;
  readonly sentAt: number | undefined;
}

/**
 * Reads and writes the park items, and frees a parked key: the in-place redrive of its dead
 * task, or its release.
 */
export class ParkedKeys {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * Writes (or refreshes) the park item of `task`'s key with the message that holds it, in
   * one transaction with a check that the task is still the DEAD one that parked this key
   * (same attempt and generation): a redrive or release that got there first makes this
   * write lose, so no item outlives its park. Returns false when it lost.
   */
  async record(task: TaskRecord, message: HeldParkMessage): Promise<boolean> {
    const key = task.parkedKey;
    if (key === undefined || task.status !== TaskStatus.DEAD) return false;
    const now = this.ctx.clock();
    const parkedAt = task.finishedAt ?? now;
    const item = {
      ...keyOf(key, task.lane),
      kind: 'parked-key',
      orderingKey: key,
      lane: task.lane ?? DEFAULT_LANE,
      taskId: task.id,
      taskType: task.type,
      parkedAt,
      receiptHandle: message.receiptHandle,
      queueArn: message.queueArn,
      messageSentAt: message.sentAt,
      updatedAt: now,
      [TableSchema.STATUS_INDEX_PARTITION_KEY]: INDEX_PARTITION,
      [TableSchema.STATUS_INDEX_SORT_KEY]: parkedAt,
    };
    const sent = await transact(this.ctx, [
      part(parking.stillParkedCheck, { task, parkedKey: key }),
      part(parking.writeParkItem, { item }),
    ]);
    if (sent.accepted) return true;
    if (sent.items[0]?.refused === true) return false;
    throw sent.error;
  }

  /**
   * DEAD with `parkedKey` → QUEUED with a fresh attempt budget, in place: no message is
   * sent, since the task's held message, at the head of its key's group, runs it before the
   * key's later tasks (docs/adr/0024-parked-keys.md); the generation moves past the dead
   * run's, so no debounce fold can rewrite it (docs/adr/0033-debounce-fences.md).
   */
  redrive(
    seen: Seen & Pick<TaskRecord, 'stepEpoch'>,
    parkedKey: string,
    reason?: string,
    principal?: string,
    restart = false,
  ): Promise<TaskRecord> {
    const input = { seen, parkedKey, reason, principal };
    return restart
      ? writeTransition(this.ctx, durable.redriveParkedAfresh, {
          ...input,
          stepEpoch: (seen.stepEpoch ?? 0) + 1,
        })
      : writeTransition(this.ctx, parking.redriveParked, input);
  }

  /**
   * DEAD with `parkedKey` → DEAD without it: the task is given up on, its held message is
   * acknowledged when next received, and the key's later tasks proceed.
   */
  release(seen: Seen, parkedKey: string, reason?: string, principal?: string): Promise<TaskRecord> {
    return writeTransition(this.ctx, parking.releaseKey, { seen, parkedKey, reason, principal });
  }

  /**
   * The park item of a key in a lane (undefined: the default lane), read consistently;
   * undefined when the key is not parked there.
   */
  async get(orderingKey: string, lane?: string): Promise<ParkRecord | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.ctx.tableName,
        Key: keyOf(orderingKey, lane),
        ConsistentRead: true,
      }),
    );
    return out.Item === undefined ? undefined : fromParkItem(out.Item);
  }

  /**
   * Deletes a key's park item in a lane if it is still the one of `taskId`. Returns whether
   * it did.
   */
  async delete(orderingKey: string, taskId: string, lane?: string): Promise<boolean> {
    const key = String(keyOf(orderingKey, lane)[TableSchema.PARTITION_KEY]);
    return (await send(this.ctx, parking.deleteParkItem, { key, taskId })).accepted;
  }

  /**
   * Every park item whose task still parks its key (see {@link stillParks}), oldest first,
   * with that task (read consistently). An item that parks nothing any more is deleted, if
   * it is still the one read: it would otherwise stay for good, since park items keep no TTL.
   */
  async verified(): Promise<VerifiedPark[]> {
    const parks = await this.list();
    const found = await getItems(
      this.ctx.doc,
      this.ctx.tableName,
      [...new Set(parks.map((p) => p.taskId))],
      { consistent: true },
    );
    const kept: VerifiedPark[] = [];
    for (const park of parks) {
      const item = found.get(park.taskId);
      const task = item === undefined ? undefined : fromItem(item);
      if (stillParks(park, task)) kept.push({ park, task });
      else await this.delete(park.orderingKey, park.taskId, park.lane);
    }
    return kept;
  }

  /**
   * Every park item, oldest park first, through the status index (never a Scan). The index
   * projects keys only, so the items are then read (BatchGetItem); one deleted in between is
   * left out.
   */
  async list(): Promise<ParkRecord[]> {
    const ids: string[] = [];
    for await (const page of partitionPages(this.ctx, { partition: INDEX_PARTITION })) {
      ids.push(...page.items.map(entryId));
    }
    const found = await getItems(this.ctx.doc, this.ctx.tableName, ids, { consistent: true });
    return ids.flatMap((id) => {
      const item = found.get(id);
      return item === undefined ? [] : [fromParkItem(item)];
    });
  }
}

/** A park item whose task still parks the key in the item's lane, with that task. */
export interface VerifiedPark {
  readonly park: ParkRecord;
  readonly task: TaskRecord;
}

/**
 * Whether `task` is still the DEAD task that parks `park`'s key in `park`'s lane. An item
 * whose task was purged, redriven or released (a follow-up a crash interrupted), or that
 * another lane's task wrote, parks nothing.
 */
export function stillParks(park: ParkRecord, task: TaskRecord | undefined): task is TaskRecord {
  const lane = task?.lane === DEFAULT_LANE ? undefined : task?.lane;
  return (
    task !== undefined &&
    task.id === park.taskId &&
    task.status === TaskStatus.DEAD &&
    task.parkedKey === park.orderingKey &&
    (park.beforeLanes || lane === park.lane)
  );
}

/** How long after its last hold a held message is sure to have come back: 12 h and a margin. */
const HOLD_RETURN_MS = (Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS + 3_600) * 1000;

/**
 * Whether the park's message may still be in its queue, holding the key's group: it was held
 * within the last 12 hours (and a margin), and its retention, counted from its first send,
 * has not run out. A message that did not come back was deleted by its retention or moved to
 * the dead-letter queue (or the workers are stopped, when holding the key is moot: nothing
 * of the group is received anyway).
 */
export function mayStillHold(park: ParkRecord, now: number): boolean {
  const retained = Defaults.QUEUE_RETENTION_SECONDS * 1000;
  if (park.messageSentAt !== undefined && park.messageSentAt + retained <= now) return false;
  return park.heldAt + HOLD_RETURN_MS > now;
}

function fromParkItem(item: Record<string, unknown>): ParkRecord {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const parkedAt = Number(item.parkedAt);
  return {
    orderingKey: String(item.orderingKey),
    // An item written before lanes has none: the default lane's.
    lane: text(item.lane) === DEFAULT_LANE ? undefined : text(item.lane),
    beforeLanes: text(item.lane) === undefined,
    taskId: String(item.taskId),
    taskType: String(item.taskType),
    parkedAt,
    heldAt: typeof item.updatedAt === 'number' ? item.updatedAt : parkedAt,
    receiptHandle: text(item.receiptHandle),
    queueArn: text(item.queueArn),
    messageSentAt: typeof item.messageSentAt === 'number' ? item.messageSentAt : undefined,
  };
}
