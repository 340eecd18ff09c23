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
  type SignalHead,
  type SignalSeen,
  SignalStore,
  type SignalWrite,
  signalCount,
  signalHeadKey,
  signalIdKey,
  signalKey,
} from './signals.js';
import type { WriteContext } from './store-context.js';
import type { TaskStore } from './task-store.js';
import * as rows from './transitions/signals.js';
import { part, recordOf, send, transact } from './transitions/writer.js';

/** The TTL of a signal item: as a step's, the retention and the longest a task may still run. */
function signalExpiry(now: number, retention: Retention): number | undefined {
  return retention === 'forever'
    ? undefined
    : Math.ceil((now + retention + Defaults.STEP_HORIZON_MS) / 1000);
}

/** Whether the task waits for the signal `name`: its sender then wakes it. */
export function waitsFor(record: Pick<TaskRecord, 'status' | 'wait'>, name: string): boolean {
  return (
    record.status === TaskStatus.SUSPENDED &&
    record.wait?.kind === 'signal' &&
    record.wait.name === name
  );
}

/** The check of the task for a signal as read: waiting for it, suspended otherwise, or neither. */
function checkFor(seen: SignalSeen, name: string) {
  if (seen.status !== TaskStatus.SUSPENDED) return rows.checkSignalled;
  return waitsFor(seen, name) ? rows.checkSignalWaiter : rows.checkSignalSleeper;
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
  async send(
    seen: SignalSeen,
    head: SignalHead | undefined,
    signal: NewSignal,
  ): Promise<SignalWrite> {
    const now = this.ctx.clock();
    const epoch = seen.stepEpoch ?? 0;
    const seq = signalCount(seen, head);
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
    const check = checkFor(seen, signal.name);
    const headKey = signalHeadKey(seen.id);
    const parts = [
      part(check, { seen, name: signal.name }),
      part(rows.countSignal, {
        key: headKey,
        task: seen,
        seen: head,
        epoch,
        seq,
        name: signal.name,
        expiresAt,
      }),
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
    if (done.accepted) return { kind: 'stored', seq, woke: check === rows.checkSignalWaiter };
    const [task, counted, stored, reserved] = done.items;
    // Another transaction held an item (a signal sent at the same moment): read and try again.
    if (done.items.some((refusal) => refusal.code === 'TransactionConflict')) {
      return { kind: 'moved', current: undefined };
    }
    if (task?.refused === true) return { kind: 'moved', current: recordOf(task.current) };
    if (reserved?.refused === true && reserved.current?.created === seen.createdAt) {
      return { kind: 'duplicate', waiting: check === rows.checkSignalWaiter };
    }
    // A head refused for the count or epoch it held: another signal took the position.
    if (counted?.refused === true && counted.current?.created === seen.createdAt) {
      return { kind: 'moved', current: undefined };
    }
    const leftovers = [counted, stored, reserved].filter(
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
   * to its count in the last, the larger of the record's `signals`, from an earlier version,
   * and its head's; all those found in earlier ones), one conditional DeleteItem each: for a
   * purge, after the task's own delete, and for a restarting redrive. A purge deletes the head
   * too (`head`); a restart keeps it, as it counts in the epoch it names and the next signal
   * moves it to the new one (docs/adr/0066-signal-head-off-the-task-item.md). Reservations of
   * signal ids are left to their TTL: they cannot be listed, and they hold no data.
   */
  async deleteAll(
    record: Pick<TaskRecord, 'id' | 'createdAt' | 'signals' | 'stepEpoch'>,
    lastEpoch: number,
    options: { readonly firstEpoch?: number; readonly head?: boolean } = {},
  ): Promise<number> {
    const firstEpoch = options.firstEpoch ?? 0;
    const head = await this.reads.head(record);
    const count = signalCount(record, head, lastEpoch);
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
    if (options.head === true && head !== undefined) {
      const key = signalHeadKey(record.id);
      if ((await send(this.ctx, rows.deleteSignal, { key, taskId: record.id })).accepted) {
        deleted++;
      }
    }
    return deleted;
  }
}

/** The signal writes of `store`'s table. */
export function signalWrites(store: TaskStore): SignalWrites {
  return store.feature(SignalWrites);
}
