/**
 * A run's view of its task's signals (docs/adr/0048-durable-sleep-signals-pause.md): how many
 * the task has been sent (from the claimed record, then from any refusal that showed more),
 * and their items, read 100 known keys per BatchGetItem and only once per run.
 */
import type { ObjectRef, TaskRecord } from '../core/record.js';
import { SIGNAL_WINDOW, type SignalStore, type StoredSignal } from '../store/signals.js';

/** The signals a run has read, and reads the rest of on demand. */
export class SignalReader {
  /** Signals the task has been sent, as far as the run knows. */
  count: number;
  private readonly known = new Map<number, StoredSignal>();
  /** Windows (by first position) already read. */
  private readonly read = new Set<number>();

  constructor(
    private readonly record: Pick<TaskRecord, 'id' | 'createdAt' | 'signals'>,
    private readonly epoch: number,
    private readonly store: SignalStore,
    private readonly fetch: (ref: ObjectRef) => Promise<string>,
  ) {
    this.count = record.signals ?? 0;
  }

  /** The first signal named `name`, in the order sent, that no earlier wait consumed. */
  async first(name: string, consumed: ReadonlySet<number>): Promise<StoredSignal | undefined> {
    for (let seq = 0; seq < this.count; seq++) {
      if (consumed.has(seq)) continue;
      const signal = await this.get(seq);
      if (signal?.name === name) return signal;
    }
    return undefined;
  }

  /** The signal at `seq`, reading its window when not read yet (or read before it was there). */
  async get(seq: number): Promise<StoredSignal | undefined> {
    const from = seq - (seq % SIGNAL_WINDOW);
    if (!this.known.has(seq) && (!this.read.has(from) || seq >= this.readCount(from))) {
      const window = await this.store.window(this.record, this.epoch, from);
      for (const [at, signal] of window) this.known.set(at, signal);
      this.read.add(from);
      this.windowCounts.set(from, this.count);
    }
    return this.known.get(seq);
  }

  /** A signal's data: its inline JSON, or its object in the payload bucket; undefined for none. */
  async data(signal: StoredSignal): Promise<unknown> {
    if (signal.dataRef !== undefined) return JSON.parse(await this.fetch(signal.dataRef));
    return signal.dataJson === undefined ? undefined : JSON.parse(signal.dataJson);
  }

  /** The count known when a window was read: positions from it on were not there yet. */
  private readonly windowCounts = new Map<number, number>();

  private readCount(from: number): number {
    return this.windowCounts.get(from) ?? 0;
  }
}
