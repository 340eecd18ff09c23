/**
 * The demo's independent check of the ordering guarantee. Handlers report each start and
 * end here (in process, at handler level), and `verify` compares the starts of every
 * ordering key with the order in which its tasks were enqueued.
 */
import * as z from 'zod/mini';

/** What a demo payload carries so its handler knows its place: key and enqueue sequence. */
export const traceSchema = z.object({
  key: z.optional(z.string()),
  seq: z.int().check(z.minimum(0)),
});

/** The trace a demo task carries in its payload. */
export type Trace = z.infer<typeof traceSchema>;

/** One handler start, in the order the starts happened. */
export interface StartEvent {
  readonly key: string | undefined;
  readonly seq: number;
  readonly attempt: number;
}

/** The verdict for one ordering key. */
export interface OrderVerdict {
  readonly key: string;
  readonly ok: boolean;
  readonly tasks: number;
  /** The first problem found, when not ok. */
  readonly problem?: string;
}

/** Records handler starts and ends; detects two handlers of one key running at once. */
export class StartLog {
  readonly starts: StartEvent[] = [];
  private readonly running = new Map<string, number>();
  private readonly overlaps = new Map<string, string>();

  /** Records a start; call the returned function when the handler settles. */
  begin(trace: Trace, attempt: number): () => void {
    const { key, seq } = trace;
    this.starts.push({ key, seq, attempt });
    if (key === undefined) return () => undefined;
    const busy = this.running.get(key);
    if (busy !== undefined && !this.overlaps.has(key)) {
      this.overlaps.set(key, `seq ${seq} started while seq ${busy} was still running`);
    }
    this.running.set(key, seq);
    return () => {
      if (this.running.get(key) === seq) this.running.delete(key);
    };
  }

  /**
   * Checks every key: its tasks started one at a time, in enqueue order, each exactly once
   * apart from retries that immediately repeat the same task.
   *
   * @param expected the sequence numbers of each key, in enqueue order.
   */
  verify(expected: ReadonlyMap<string, readonly number[]>): OrderVerdict[] {
    return [...expected].map(([key, planned]) => {
      const verdict = (problem?: string): OrderVerdict =>
        problem === undefined
          ? { key, ok: true, tasks: planned.length }
          : { key, ok: false, tasks: planned.length, problem };
      const overlap = this.overlaps.get(key);
      if (overlap !== undefined) return verdict(overlap);
      const seqs = this.starts.filter((s) => s.key === key).map((s) => s.seq);
      const firsts: number[] = [];
      for (const [i, seq] of seqs.entries()) {
        const previous = seqs[i - 1];
        if (previous !== undefined && seq < previous) {
          return verdict(`seq ${seq} started after seq ${previous}`);
        }
        if (seq !== previous) firsts.push(seq);
      }
      for (const [i, seq] of planned.entries()) {
        if (firsts[i] !== seq) {
          return verdict(`start #${i + 1} was seq ${firsts[i] ?? '(none)'}, expected seq ${seq}`);
        }
      }
      if (firsts.length > planned.length) return verdict('more tasks started than were enqueued');
      return verdict();
    });
  }
}
