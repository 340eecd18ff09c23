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
 */

import { toObjectRef } from '../claim-check/object-ref.js';
import { Defaults } from '../core/constants.js';
import type { ObjectRef, TaskRecord } from '../core/record.js';
import { getItems } from './batch-get.js';
import type { TaskItem } from './record.js';
import type { WriteContext } from './store-context.js';

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
  /** A signal with this signal id was stored before: nothing was written. */
  | { readonly kind: 'duplicate' }
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
    const signals = new Map<number, StoredSignal>();
    for (const item of items.values()) {
      if (item.taskId !== record.id || item.created !== record.createdAt) continue;
      const signal = toStoredSignal(item);
      if (signal !== undefined) signals.set(signal.seq, signal);
    }
    return signals;
  }

  /** Every signal of the task's current epoch (at most MAX_SIGNALS), in the order sent. */
  async list(
    record: Pick<TaskRecord, 'id' | 'createdAt' | 'signals' | 'stepEpoch'>,
  ): Promise<StoredSignal[]> {
    const found: StoredSignal[] = [];
    const count = readableSignals(record.signals ?? 0);
    for (let from = 0; from < count; from += SIGNAL_WINDOW) {
      const window = await this.window(record, record.stepEpoch ?? 0, from, count - from);
      found.push(...[...window.values()].sort((a, b) => a.seq - b.seq));
    }
    return found;
  }
}
