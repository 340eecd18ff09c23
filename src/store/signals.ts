/**
 * The signals of durable tasks (docs/adr/0048-durable-sleep-signals-pause.md). A signal is an
 * item of the task table, keyed by its task, the task's step epoch and its position in the
 * order the task was sent its signals: `signal <task id> <epoch> <n>` (a task id holds no
 * space, so no signal's key is a task's). It is stored with one transaction: the task's mark,
 * which counts it and is fenced by the count the sender read (and, for a SUSPENDED task
 * waiting for it, wakes it), and its item, written once; with a signal id, a reservation item
 * `signal <task id> id <signal id>` too, so a signal sent again is stored once
 * (src/store/signal-writes.ts). A waiting run reads a task's signals 100 known keys at a time,
 * in that order (this module).
 *
 * The count lives in the task's signal head, `signal <task id> head`, an item of its own inside
 * the signal keys a sender's grant may write, never on the task's item, which a sender only
 * checks (docs/adr/0066-signal-head-off-the-task-item.md). A record written by an earlier
 * version may still count signals itself (`signals`): the count is the larger of the two.
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { toObjectRef } from '../claim-check/object-ref.js';
import { Defaults, TableSchema, TaskStatus } from '../core/constants.js';
import type { ObjectRef, TaskRecord } from '../core/record.js';
import { getItems } from './batch-get.js';
import type { TaskItem } from './record.js';
import type { WriteContext } from './store-context.js';
import * as suspension from './transitions/suspension.js';
import { recordOf, send } from './transitions/writer.js';

/**
 * The first word of every signal item's key (`signal <task id> …`); the grant of a signal
 * sender names `signal *` (docs/security.md).
 */
export const SIGNAL_ITEM_PREFIX = 'signal ';

/** Positions read with one BatchGetItem: its limit of keys. */
export const SIGNAL_WINDOW = 100;

/**
 * How many of a task's signal positions may be read when it counts `count`: never more than
 * {@link Defaults.MAX_SIGNALS}, the most a task is sent, whatever count a record (or a
 * refusal) shows, so a count out of bounds never makes a read unbounded.
 */
export function readableSignals(count: number): number {
  return Math.max(0, Math.min(count, Defaults.MAX_SIGNALS));
}

/** The key of a task's `n`-th signal (from 0) in step epoch `epoch`. */
export function signalKey(taskId: string, epoch: number, n: number): string {
  return `${signalPrefix(taskId)}${epoch} ${n}`;
}

/** The key that reserves a signal id for a task: a second signal with the id is refused. */
export function signalIdKey(taskId: string, signalId: string): string {
  return `${signalPrefix(taskId)}id ${signalId}`;
}

/** Every signal item of `taskId` starts so (the grant of a signal sender names `signal *`). */
export function signalPrefix(taskId: string): string {
  return `${SIGNAL_ITEM_PREFIX}${taskId} `;
}

/**
 * The key of a task's signal head: its signal count and the epoch it counts in. No signal's key
 * (`… <epoch> <n>`, numbers) nor reservation's (`… id <signal id>`) is this one.
 */
export function signalHeadKey(taskId: string): string {
  return `${signalPrefix(taskId)}head`;
}

/** The task id of a signal head's key ({@link signalHeadKey}); undefined for any other key. */
export function headTaskId(key: string): string | undefined {
  const suffix = ' head';
  if (!key.startsWith(SIGNAL_ITEM_PREFIX) || !key.endsWith(suffix)) return undefined;
  return key.slice(SIGNAL_ITEM_PREFIX.length, -suffix.length);
}

/** A task's signal head, as stored (docs/adr/0066-signal-head-off-the-task-item.md). */
export interface SignalHead {
  /** The step epoch it counts signals in. */
  readonly epoch: number;
  /** Signals stored in that epoch. */
  readonly count: number;
  /**
   * The name of the last of them (at `count - 1`); undefined on a head written before it was
   * kept. A wake after one new signal decides from it without reading the signal's item.
   */
  readonly last?: string | undefined;
  /** Whether it is filed in the sweeper's wake partition (a waiter may need waking). */
  readonly filed: boolean;
}

/** The head of `record`'s task in an item, or undefined (none, or a purged task's). */
export function toSignalHead(
  item: TaskItem | undefined,
  record: Pick<TaskRecord, 'id' | 'createdAt'>,
): SignalHead | undefined {
  if (item === undefined || item.taskId !== record.id || item.created !== record.createdAt) {
    return undefined;
  }
  if (typeof item.epoch !== 'number' || typeof item.count !== 'number') return undefined;
  return {
    epoch: item.epoch,
    count: item.count,
    ...(typeof item.last === 'string' ? { last: item.last } : {}),
    filed: item[TableSchema.STATUS_INDEX_PARTITION_KEY] !== undefined,
  };
}

/**
 * How many signals a task has in step epoch `epoch`: its head's count there and, for a record
 * an earlier version counted on, the record's `signals` (migration: the larger of the two).
 */
export function signalCount(
  record: Pick<TaskRecord, 'signals' | 'stepEpoch'>,
  head: SignalHead | undefined,
  epoch = record.stepEpoch ?? 0,
): number {
  const legacy = epoch === (record.stepEpoch ?? 0) ? (record.signals ?? 0) : 0;
  return Math.max(legacy, head !== undefined && head.epoch === epoch ? head.count : 0);
}

/** A stored signal. */
export interface StoredSignal {
  /** Its position in the order the task was sent its signals, from 0. */
  readonly seq: number;
  readonly name: string;
  /** When it was stored (the sender's clock, epoch ms). */
  readonly at: number;
  /** Its data's JSON when kept inline; undefined for a signal without data. */
  readonly dataJson?: string | undefined;
  /** Its data in the payload bucket, when larger than 4 KB. */
  readonly dataRef?: ObjectRef | undefined;
  /** The sender's signal id, if it gave one. */
  readonly signalId?: string | undefined;
}

/** A signal to store, as the sender has it. */
export interface NewSignal {
  readonly name: string;
  readonly dataJson?: string | undefined;
  readonly dataRef?: ObjectRef | undefined;
  readonly signalId?: string | undefined;
}

/** The part of a task's record a signal's write is fenced by. */
export type SignalSeen = Pick<
  TaskRecord,
  'id' | 'status' | 'signals' | 'stepEpoch' | 'wait' | 'createdAt'
>;

/** What storing a signal came to. */
export type SignalWrite =
  /** Stored at `seq`; `woke`: the task waited for it, and the mark woke it. */
  | { readonly kind: 'stored'; readonly seq: number; readonly woke: boolean }
  /** Stored before under this signal id; `waiting`: the task, as read, waits for its name. */
  | { readonly kind: 'duplicate'; readonly waiting: boolean }
  /** The task moved on since it was read (or is gone): `current`, to decide again from. */
  | { readonly kind: 'moved'; readonly current: TaskRecord | undefined };

/** A signal item as a stored signal, or undefined for an item that is none. */
export function toStoredSignal(item: TaskItem): StoredSignal | undefined {
  const { name, seq, at } = item;
  if (typeof name !== 'string' || typeof seq !== 'number' || typeof at !== 'number') {
    return undefined;
  }
  const dataRef = toObjectRef(item.dataRef);
  return {
    seq,
    name,
    at,
    ...(typeof item.data === 'string' ? { dataJson: item.data } : {}),
    ...(dataRef === undefined ? {} : { dataRef }),
    ...(typeof item.sid === 'string' ? { signalId: item.sid } : {}),
  };
}

/**
 * The reads of one task table's signal items: what a waiting run needs. Storing and deleting
 * them is the client's (src/store/signal-writes.ts), which a worker does not load.
 */
export class SignalStore {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * The stored signals of a task at positions `from` to `from + 99`, by position: one strongly
   * consistent BatchGetItem, so a signal stored a moment ago is never missed. Only the items
   * of this task (`createdAt`), not those a purged task of the same id left.
   */
  async window(
    record: Pick<TaskRecord, 'id' | 'createdAt'>,
    epoch: number,
    from: number,
    count = SIGNAL_WINDOW,
  ): Promise<Map<number, StoredSignal>> {
    const keys = Array.from({ length: Math.min(count, SIGNAL_WINDOW) }, (_, n) =>
      signalKey(record.id, epoch, from + n),
    );
    const items = await getItems(this.ctx.doc, this.ctx.tableName, keys, { consistent: true });
    return this.ofTask(items, record);
  }

  /** The task's signal head (strongly consistent GetItem), or undefined for none. */
  async head(record: Pick<TaskRecord, 'id' | 'createdAt'>): Promise<SignalHead | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.ctx.tableName,
        Key: { [TableSchema.PARTITION_KEY]: signalHeadKey(record.id) },
        ConsistentRead: true,
      }),
    );
    return toSignalHead(out.Item, record);
  }

  /**
   * Wakes `record`, SUSPENDED waiting for a signal and not woken, when its head counts a signal
   * after the wait's position and one of them has the wait's name (read by their known keys)
   * (docs/adr/0066-signal-head-off-the-task-item.md): writes
   * `note the signal wake of`, due at `nextAt` in the status index. @returns the record as
   * written, or undefined when no signal came after the wait or the task moved on.
   */
  async wakeIfSignalled(record: TaskRecord, nextAt: number): Promise<TaskRecord | undefined> {
    const { wait } = record;
    if (record.status !== TaskStatus.SUSPENDED || record.woken === true) return undefined;
    if (wait?.kind !== 'signal') return undefined;
    const head = await this.head(record);
    const from = wait.signalsSeen ?? 0;
    const count = readableSignals(signalCount(record, head, wait.epoch));
    if (count <= from) return undefined;
    // Only a signal of the wait's name wakes it; past one window, the run looks for itself.
    // One new signal, the head's last, is named by the head: no read of its item.
    const named = count - from === 1 && head?.epoch === wait.epoch && head.count === count;
    if (named && head.last !== undefined) {
      if (head.last !== wait.name) return undefined;
    } else if (count - from <= SIGNAL_WINDOW) {
      const after = await this.window(record, wait.epoch, from, count - from);
      if (![...after.values()].some((signal) => signal.name === wait.name)) return undefined;
    }
    const sent = await send(this.ctx, suspension.noteSignalWake, { seen: record, nextAt });
    return sent.accepted ? recordOf(sent.item) : undefined;
  }

  /**
   * A window of signals (see {@link window}) and the task's head, read with the same one
   * BatchGetItem (99 positions and the head): how a run learns the count without a request
   * of its own. The reads of one BatchGetItem are not one snapshot: a position the head counts
   * may be read before its signal's transaction, so a caller settles only positions below a
   * count it knew before this read.
   */
  async windowAndHead(
    record: Pick<TaskRecord, 'id' | 'createdAt'>,
    epoch: number,
    from: number,
    count = SIGNAL_WINDOW - 1,
  ): Promise<{ signals: Map<number, StoredSignal>; head: SignalHead | undefined }> {
    const positions = Math.min(count, SIGNAL_WINDOW - 1);
    const keys = [
      signalHeadKey(record.id),
      ...Array.from({ length: positions }, (_, n) => signalKey(record.id, epoch, from + n)),
    ];
    const items = await getItems(this.ctx.doc, this.ctx.tableName, keys, { consistent: true });
    const head = toSignalHead(items.get(signalHeadKey(record.id)), record);
    items.delete(signalHeadKey(record.id));
    return { signals: this.ofTask(items, record), head };
  }

  private ofTask(
    items: Map<string, TaskItem>,
    record: Pick<TaskRecord, 'id' | 'createdAt'>,
  ): Map<number, StoredSignal> {
    const signals = new Map<number, StoredSignal>();
    for (const item of items.values()) {
      if (item.taskId !== record.id || item.created !== record.createdAt) continue;
      const signal = toStoredSignal(item);
      if (signal !== undefined) signals.set(signal.seq, signal);
    }
    return signals;
  }

  /**
   * Every signal of the task's current epoch (at most MAX_SIGNALS), in the order sent: as many
   * as its head (or, from an earlier version, its record) counts.
   */
  async list(
    record: Pick<TaskRecord, 'id' | 'createdAt' | 'signals' | 'stepEpoch'>,
  ): Promise<StoredSignal[]> {
    const found: StoredSignal[] = [];
    const count = readableSignals(signalCount(record, await this.head(record)));
    for (let from = 0; from < count; from += SIGNAL_WINDOW) {
      const window = await this.window(record, record.stepEpoch ?? 0, from, count - from);
      found.push(...[...window.values()].sort((a, b) => a.seq - b.seq));
    }
    return found;
  }
}
