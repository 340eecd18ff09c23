/**
 * A run's view of its task's signals (docs/adr/0048-durable-sleep-signals-pause.md): how many
 * the task has been sent (from its signal head, read with the run's first window of signal
 * items in one BatchGetItem, and from a record an earlier version counted on:
 * docs/adr/0066-signal-head-off-the-task-item.md), and their items, read once per run, from
 * the first a wait has not consumed and only below the count (at most 100 keys per
 * BatchGetItem).
 */
import type { ObjectRef, TaskRecord } from '../core/record.js';
import {
  readableSignals,
  SIGNAL_WINDOW,
  type SignalStore,
  type StoredSignal,
  signalCount,
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
  /** Whether the head was read: the count is then the head's (or the record's, if larger). */
  private headRead = false;

  /** Whether the run has read the head: a wait that read it earlier reads it again (refresh). */
  get read(): boolean {
    return this.headRead;
  }

  constructor(
    private readonly record: Pick<TaskRecord, 'id' | 'createdAt' | 'signals' | 'stepEpoch'>,
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
    let from = 0;
    while (consumed.has(from)) from += 1;
    await this.readHead(from);
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
    await this.readHead(seq);
    if (this.known.has(seq) || this.settled.has(seq)) return this.known.get(seq);
    let count = 1;
    const readable = readableSignals(this.count);
    const read = (at: number) => this.settled.has(at) || this.known.has(at);
    while (count < signalRead(seq, readable) && !read(seq + count)) count += 1;
    const window = await this.store.window(this.record, this.epoch, seq, count);
    for (const [at, signal] of window) this.known.set(at, signal);
    for (let at = seq; at < seq + count && at < this.count; at++) this.settled.add(at);
    return this.known.get(seq);
  }

  /**
   * Reads the head, once per run, in the same BatchGetItem as the positions from `from` that
   * can exist: those below the count known before the read (an earlier version's, on the
   * record), and at least `from`'s own, the one a wait for a single signal needs. DynamoDB
   * bills a strongly consistent read of a key without an item at a full unit, so reading 99
   * positions blind cost a signal wait about 100 read units (ADR 0048's sized reads); the
   * positions past these that the head counts are read by {@link get}, sized to its count.
   * A position is settled only below the count known before the read: the head and a signal's
   * item are read apart, so one the head counts may be read before its transaction lands.
   */
  private async readHead(from: number): Promise<void> {
    if (this.headRead) return;
    this.headRead = true;
    const before = this.count;
    const ahead = Math.max(1, Math.min(SIGNAL_WINDOW - 1, readableSignals(before) - from));
    const read = await this.store.windowAndHead(this.record, this.epoch, from, ahead);
    for (const [at, signal] of read.signals) this.known.set(at, signal);
    for (let at = from; at < from + ahead && at < before; at++) this.settled.add(at);
    this.count = Math.max(before, signalCount(this.record, read.head, this.epoch));
  }

  /**
   * Reads the head again (one GetItem): a wait about to suspend on a count an earlier wait of
   * the run read, which a signal sent meanwhile has passed (its sender saw the task RUNNING,
   * so neither fences the suspension nor wakes it). Returns whether the count grew.
   */
  async refresh(): Promise<boolean> {
    const before = this.count;
    this.headRead = true;
    const head = await this.store.head(this.record);
    this.count = Math.max(before, signalCount(this.record, head, this.epoch));
    return this.count > before;
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
