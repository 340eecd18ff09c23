/**
 * Storing and deleting the signals of durable tasks (docs/adr/0048-durable-sleep-signals-pause.md):
 * the client's writes, apart from the reads a waiting run makes (src/store/signals.ts), so
 * that the worker's bundle leaves them out (docs/adr/0006-worker-bundle.md). The module
 * comment of signals.ts says how a signal is stored.
 */
import { Defaults, TableSchema, TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import type { Retention } from '../settings/retention.js';
import type { TaskItem } from './record.js';
import {
  type NewSignal,
  readableSignals,
  SIGNAL_WINDOW,
  type SignalSeen,
  SignalStore,
  type SignalWrite,
  signalIdKey,
  signalKey,
} from './signals.js';
import type { WriteContext } from './store-context.js';
import type { TaskStore } from './task-store.js';
import { signals as rows } from './transitions/index.js';
import { part, recordOf, send, transact } from './transitions/writer.js';

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

/** The signal writes of one task table. */
export class SignalWrites {
  private readonly reads: SignalStore;

  constructor(private readonly ctx: WriteContext) {
    this.reads = new SignalStore(ctx);
  }

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
      const limit = epoch === lastEpoch ? readableSignals(count) : Defaults.MAX_SIGNALS;
      for (let from = 0; from < limit; from += SIGNAL_WINDOW) {
        const window = await this.reads.window(record, epoch, from);
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

/** The signal writes of `store`'s table. */
export function signalWrites(store: TaskStore): SignalWrites {
  return store.part((ctx) => new SignalWrites(ctx));
}
