/**
 * A run's view of its task's signals (docs/adr/0048-durable-sleep-signals-pause.md): how many
 * the task has been sent (from the claimed record, then from any refusal that showed more),
 * and their items, read once per run, from the first a wait has not consumed and only
 * below the count (at most 100 keys per BatchGetItem).
 */
import type { ObjectRef, TaskRecord } from '../core/record.js';
import {
  readableSignals,
  SIGNAL_WINDOW,
  type SignalStore,
  type StoredSignal,
} from '../store/signals.js';

/** The signals a run has read, and reads the rest of on demand. */
export class SignalReader {
  /** Signals the task has been sent, as far as the run knows. */
  count: number;
  private readonly known = new Map<number, StoredSignal>();
  /**
   * Positions read while below the count: a signal's item is written with the mark that
   * counts it, so one of them found empty is gone (expired or purged), not yet to come.
   */
  private readonly settled = new Set<number>();

  constructor(
    private readonly record: Pick<TaskRecord, 'id' | 'createdAt' | 'signals'>,
    private readonly epoch: number,
    private readonly store: SignalStore,
    private readonly fetch: (ref: ObjectRef) => Promise<string>,
  ) {
    this.count = record.signals ?? 0;
  }

  /**
   * The first signal named `name`, in the order sent, that no earlier wait consumed: among the
   * first MAX_SIGNALS, the most a task is sent ({@link readableSignals}).
   */
  async first(name: string, consumed: ReadonlySet<number>): Promise<StoredSignal | undefined> {
    const readable = readableSignals(this.count);
    for (let seq = 0; seq < readable; seq++) {
      if (consumed.has(seq)) continue;
      const signal = await this.get(seq);
      if (signal?.name === name) return signal;
    }
    return undefined;
  }

  /**
   * The signal at `seq`, reading it when not read yet (or read before it was counted): with
   * the positions after it that can exist, those below the count ({@link signalRead}), up to
   * the first already read.
   */
  async get(seq: number): Promise<StoredSignal | undefined> {
    if (this.known.has(seq) || this.settled.has(seq)) return this.known.get(seq);
    let count = 1;
    const readable = readableSignals(this.count);
    while (count < signalRead(seq, readable) && !this.settled.has(seq + count)) count += 1;
    const window = await this.store.window(this.record, this.epoch, seq, count);
    for (const [at, signal] of window) this.known.set(at, signal);
    for (let at = seq; at < seq + count && at < this.count; at++) this.settled.add(at);
    return this.known.get(seq);
  }

  /** A signal's data: its inline JSON, or its object in the payload bucket; undefined for none. */
  async data(signal: StoredSignal): Promise<unknown> {
    if (signal.dataRef !== undefined) return JSON.parse(await this.fetch(signal.dataRef));
    return signal.dataJson === undefined ? undefined : JSON.parse(signal.dataJson);
  }
}

/**
 * How many signal positions to read from `seq` when the task has been sent `count`: those
 * that can exist (below the count), at most one BatchGetItem's 100, and at least `seq`'s own.
 */
export function signalRead(seq: number, count: number): number {
  return Math.max(1, Math.min(SIGNAL_WINDOW, count - seq));
}
