import pLimit, { type LimitFunction } from 'p-limit';

/**
 * Keeps a worker's lease takeovers apart from all its other claimed work, across every batch
 * the process runs at once (ADR 0007): a takeover may crash the process, and then every task
 * it holds a claim on loses an attempt.
 *
 * A readers-writer gate. Fresh phases of batches are shared: any number run together. A
 * batch's takeover phase is exclusive: it starts once no fresh phase is running and holds
 * off fresh phases that arrive meanwhile. Entry is first come, first served (one p-limit
 * queue), so a stream of fresh batches cannot starve a takeover, nor the other way round.
 */
export class TakeoverGate {
  /** The order of entry; an exclusive phase holds it for its whole run. */
  private readonly entry: LimitFunction = pLimit(1);
  private freshRunning = 0;
  private drained: (() => void) | undefined;

  /** Runs a batch's fresh phase, alongside other fresh phases but never beside a takeover. */
  async fresh<T>(run: () => Promise<T>): Promise<T> {
    // Passing through the queue is enough: a takeover ahead holds it until it is done.
    await this.entry(() => {
      this.freshRunning += 1;
    });
    try {
      return await run();
    } finally {
      this.freshRunning -= 1;
      if (this.freshRunning === 0) this.drained?.();
    }
  }

  /** Runs a batch's takeover phase alone: no other phase of this worker runs meanwhile. */
  takeover<T>(run: () => Promise<T>): Promise<T> {
    return this.entry(async () => {
      if (this.freshRunning > 0) {
        await new Promise<void>((resolve) => {
          this.drained = resolve;
        });
        this.drained = undefined;
      }
      return run();
    });
  }
}
