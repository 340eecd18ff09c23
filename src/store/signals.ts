/**
 * The signals of durable tasks (docs/adr/0048-durable-sleep-signals-pause.md). A signal is an
 * item of the task table, keyed by its task, the task's step epoch and its position in the
 * order the task was sent its signals: `signal <task id> <epoch> <n>` (a task id holds no
 * space, so no signal's key is a task's). It is stored with one transaction: the task's mark,
 * which counts it and is fenced by the count the sender read (and, for a SUSPENDED task
 * waiting for it, wakes it), and its item, written once; with a signal id, a reservation item
 * `signal <task id> id <signal id>` too, so a signal sent again is stored once. A waiting run
 * reads a task's signals 100 known keys at a time, in that order.
 */

import { toObjectRef } from '../claim-check/object-ref.js';
import { Defaults, TableSchema, TaskStatus } from '../core/constants.js';
import type { ObjectRef, TaskRecord } from '../core/record.js';
import type { Retention } from '../settings/retention.js';
import { getItems } from './batch-get.js';
import { SIGNAL_ITEM_PREFIX } from './producer-writes.js';
import type { TaskItem } from './record.js';
import type { WriteContext } from './store-context.js';
import { signals as rows } from './transitions/index.js';
import { part, recordOf, send, transact } from './transitions/writer.js';

/** Positions read with one BatchGetItem: its limit of keys. */
export const SIGNAL_WINDOW = 100;

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

/** The TTL of a signal item: as a step's, the retention and the longest a task may still run. */
function signalExpiry(now: number, retention: Retention): number | undefined {
  return retention === 'forever'
    ? undefined
    : Math.ceil((now + retention + Defaults.STEP_HORIZON_MS) / 1000);
}

/** Whether the task waits for the signal `name`: the mark that stores it then wakes it. */
export function waitsFor(record: Pick<TaskRecord, 'status' | 'wait'>, name: string): boolean {
  return (
    record.status === TaskStatus.SUSPENDED &&
    record.wait?.kind === 'signal' &&
    record.wait.name === name
  );
}

/** The mark of a signal for a task as read: count it, and wake it when it waits for it. */
function markFor(seen: SignalSeen, name: string) {
  if (seen.status !== TaskStatus.SUSPENDED) return rows.signal;
  return waitsFor(seen, name) ? rows.signalAndWake : rows.signalSleeper;
}

function toStoredSignal(item: TaskItem): StoredSignal | undefined {
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

/** The signal items of one task table. */
export class SignalStore {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * Stores a signal for the task `seen` at its next position, with one transaction (see the
   * module's comment). Refused because the task moved on (another signal took the position, it
   * finished, it was woken or went to sleep), it returns the record as DynamoDB held it, for
   * the caller to decide again from; refused for a signal id stored before, `duplicate`.
   */
  async send(seen: SignalSeen, signal: NewSignal): Promise<SignalWrite> {
    const now = this.ctx.clock();
    const epoch = seen.stepEpoch ?? 0;
    const seq = seen.signals ?? 0;
    const expiresAt = signalExpiry(now, this.ctx.retention);
    const item: TaskItem = {
      [TableSchema.PARTITION_KEY]: signalKey(seen.id, epoch, seq),
      taskId: seen.id,
      // Which task of the id: a signal left by a purged task of the same id is not this one's.
      created: seen.createdAt,
      name: signal.name,
      seq,
      at: now,
      ...(signal.dataJson === undefined ? {} : { data: signal.dataJson }),
      ...(signal.dataRef === undefined ? {} : { dataRef: signal.dataRef }),
      ...(signal.signalId === undefined ? {} : { sid: signal.signalId }),
      [TableSchema.TTL_ATTRIBUTE]: expiresAt,
    };
    const mark = markFor(seen, signal.name);
    const parts = [
      part(mark, { seen, name: signal.name }),
      part(rows.storeSignal, { item }),
      ...(signal.signalId === undefined
        ? []
        : [
            part(rows.storeSignal, {
              item: {
                [TableSchema.PARTITION_KEY]: signalIdKey(seen.id, signal.signalId),
                taskId: seen.id,
                created: seen.createdAt,
                seq,
                [TableSchema.TTL_ATTRIBUTE]: expiresAt,
              },
            }),
          ]),
    ];
    const done = await transact(this.ctx, parts, now);
    if (done.accepted) return { kind: 'stored', seq, woke: mark === rows.signalAndWake };
    const [task, stored, reserved] = done.items;
    // Another transaction held an item (a signal sent at the same moment): read and try again.
    if (done.items.some((refusal) => refusal.code === 'TransactionConflict')) {
      return { kind: 'moved', current: undefined };
    }
    if (task?.refused === true) return { kind: 'moved', current: recordOf(task.current) };
    if (reserved?.refused === true && reserved.current?.created === seen.createdAt) {
      return { kind: 'duplicate' };
    }
    const leftovers = [stored, reserved].filter(
      (refusal) => refusal?.refused === true && refusal.current?.created !== seen.createdAt,
    );
    if (leftovers.length === 0) throw done.error;
    // Items a purged task of the same id left behind: deleted, then the caller tries again.
    for (const refusal of leftovers) {
      const key = String(refusal?.current?.[TableSchema.PARTITION_KEY]);
      const taskId = String(refusal?.current?.taskId);
      await send(this.ctx, rows.deleteSignal, { key, taskId });
    }
    return { kind: 'moved', current: undefined };
  }

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

  /** Every signal of the task's current epoch, in the order it was sent them. */
  async list(
    record: Pick<TaskRecord, 'id' | 'createdAt' | 'signals' | 'stepEpoch'>,
  ): Promise<StoredSignal[]> {
    const found: StoredSignal[] = [];
    const count = record.signals ?? 0;
    for (let from = 0; from < count; from += SIGNAL_WINDOW) {
      const window = await this.window(record, record.stepEpoch ?? 0, from, count - from);
      found.push(...[...window.values()].sort((a, b) => a.seq - b.seq));
    }
    return found;
  }

  /**
   * Deletes the signal items of `taskId` in epochs `firstEpoch` to `lastEpoch` (positions up
   * to `count` in the last, all those found in earlier ones), one conditional DeleteItem each:
   * for a purge, after the task's own delete, and for a restarting redrive. Reservations of
   * signal ids are left to their TTL: they cannot be listed, and they hold no data.
   */
  async deleteAll(
    record: Pick<TaskRecord, 'id' | 'createdAt'>,
    lastEpoch: number,
    count: number,
    firstEpoch = 0,
  ): Promise<number> {
    let deleted = 0;
    for (let epoch = firstEpoch; epoch <= lastEpoch; epoch++) {
      const limit = epoch === lastEpoch ? count : Defaults.MAX_SIGNALS;
      for (let from = 0; from < limit; from += SIGNAL_WINDOW) {
        const window = await this.window(record, epoch, from);
        for (const signal of window.values()) {
          const key = signalKey(record.id, epoch, signal.seq);
          const sent = await send(this.ctx, rows.deleteSignal, { key, taskId: record.id });
          if (sent.accepted) deleted++;
        }
        if (window.size < SIGNAL_WINDOW) break;
      }
    }
    return deleted;
  }
}
