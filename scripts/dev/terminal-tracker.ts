/**
 * Counts finished tasks by reading their records, which are the source of truth. Reading
 * all of them five times a second would swamp the emulator, so handler hooks say which
 * records are worth reading (`touch`); a full pass over the unfinished ones runs only
 * when those hints stop producing progress, which also covers tasks that end without a
 * handler run.
 */
import pLimit from 'p-limit';
import { TERMINAL_STATUSES } from '../../src/core/constants.js';
import { isTerminal, type TaskClient, type TaskRecord } from '../../src/index.js';

/** Terminal counts at one moment. */
export interface TerminalCounts {
  readonly total: number;
  readonly finished: number;
  readonly byStatus: Readonly<Record<string, number>>;
}

/** Without progress for this long, every unfinished record is read. */
const FULL_PASS_AFTER_MS = 2_000;
const READ_CONCURRENCY = 8;

/** Tracks which of a fixed set of tasks have reached a terminal state. */
export class TerminalTracker {
  private readonly unfinished: Set<string>;
  private readonly hinted = new Set<string>();
  private readonly finished = new Map<string, TaskRecord>();
  private readonly limit = pLimit(READ_CONCURRENCY);
  private lastProgressAt = Date.now();

  constructor(
    private readonly client: TaskClient,
    ids: readonly string[],
  ) {
    this.unfinished = new Set(ids);
  }

  /** Hints that a task's record may have changed, e.g. its handler just settled. */
  touch(id: string): void {
    if (this.unfinished.has(id)) this.hinted.add(id);
  }

  /** Reads the records worth reading and returns the new counts. */
  async refresh(): Promise<TerminalCounts> {
    const fullPass = Date.now() - this.lastProgressAt >= FULL_PASS_AFTER_MS;
    const ids = [...(fullPass ? this.unfinished : this.hinted)];
    const before = this.finished.size;
    await Promise.all(ids.map((id) => this.limit(() => this.read(id))));
    if (this.finished.size > before || fullPass) this.lastProgressAt = Date.now();
    return this.counts();
  }

  /** The current counts, without reading anything. */
  counts(): TerminalCounts {
    const byStatus: Record<string, number> = Object.fromEntries(
      TERMINAL_STATUSES.map((status) => [status, 0]),
    );
    for (const record of this.finished.values()) {
      byStatus[record.status] = (byStatus[record.status] ?? 0) + 1;
    }
    return {
      total: this.unfinished.size + this.finished.size,
      finished: this.finished.size,
      byStatus,
    };
  }

  /** Ids of the tasks not seen terminal yet. */
  pending(): string[] {
    return [...this.unfinished];
  }

  private async read(id: string): Promise<void> {
    const record = await this.client.get(id);
    if (record === undefined || !isTerminal(record.status)) return;
    this.unfinished.delete(id);
    this.hinted.delete(id);
    this.finished.set(id, record);
  }
}
