import { describeError } from '../error-info.js';
import { LeaseLostError } from '../errors.js';
import type { TaskLogger } from '../observability/logger.js';
import type { TaskRecord } from '../store/record.js';
import type { Lease } from '../store/task-store.js';
import type { ProcessorDeps } from './deps.js';
import { visibilitySeconds } from './visibility.js';

/** The message a run holds, whose visibility follows the lease. */
export interface HeldMessage {
  readonly receiptHandle: string;
  readonly eventSourceARN: string;
}

/**
 * Keeps a run's lease alive: `beat` (the handler's `heartbeat`) extends the lease and the
 * message's visibility; with `start`, it also beats every third of the lease while the
 * handler works, when the lease is shorter than the run may be. A beat refused because the
 * lease is gone aborts the run, whose outcome will then never be written.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: ProcessorDeps,
    private readonly task: { readonly record: TaskRecord; readonly lease: Lease },
    private readonly message: HeldMessage,
    private readonly leaseMs: number,
    private readonly controller: AbortController,
  ) {}

  /** Extends the lease, then the message's visibility. */
  readonly beat = async (): Promise<void> => {
    try {
      await this.deps.store.extendLease(this.task.lease, this.leaseMs);
    } catch (err) {
      if (err instanceof LeaseLostError) this.controller.abort(err);
      throw err;
    }
    await this.deps.visibility.extend({
      receiptHandle: this.message.receiptHandle,
      eventSourceARN: this.message.eventSourceARN,
      seconds: visibilitySeconds(this.leaseMs),
    });
  };

  /** Beats automatically when the lease is shorter than `runMs` (plus grace). */
  start(runMs: number, logger: TaskLogger): void {
    if (this.leaseMs >= runMs + this.deps.leaseGraceMs) return;
    this.timer = setInterval(() => {
      this.beat().catch((err: unknown) => {
        if (!(err instanceof LeaseLostError)) {
          logger.warn('automatic heartbeat failed; retrying at the next interval', {
            error: describeError(err),
          });
        }
      });
    }, this.leaseMs / 3);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
