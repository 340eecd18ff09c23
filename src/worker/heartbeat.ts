import { describeError } from '../error-info.js';
import { LeaseLostError, TaskCancelledError } from '../errors.js';
import type { TaskLogger } from '../observability/logger.js';
import type { TaskRecord } from '../store/record.js';
import type { Lease } from '../store/task-store.js';
import { progressJson } from '../tasks/progress.js';
import type { ProcessorDeps } from './deps.js';
import { progressFlushDelay } from './run-decisions.js';
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
 *
 * Each beat also carries the handler's latest `progress` details, and reads the record it
 * wrote back: a cancel request on it aborts the signal with a TaskCancelledError. Progress
 * between beats is coalesced: the latest details wait for the next automatic beat, or,
 * without one, for a beat of their own at most once per interval (ADR 0022).
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private pending: string | undefined;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private automatic = false;
  private stopped = false;
  private cancelSeen = false;
  private logger: TaskLogger;
  private readonly intervalMs: number;

  constructor(
    private readonly deps: ProcessorDeps,
    private readonly task: { readonly record: TaskRecord; readonly lease: Lease },
    private readonly message: HeldMessage,
    private readonly leaseMs: number,
    private readonly controller: AbortController,
  ) {
    this.logger = deps.logger;
    this.intervalMs = leaseMs / 3;
  }

  /** True once a beat saw a cancel request and aborted the signal for it. */
  get cancelled(): boolean {
    return this.cancelSeen;
  }

  /** Extends the lease (writing any pending progress), then the message's visibility. */
  readonly beat = async (): Promise<void> => {
    const progress = this.pending;
    this.pending = undefined;
    this.lastWriteAt = this.deps.clock();
    let record: TaskRecord;
    try {
      record = await this.deps.store.extendLease(this.task.lease, this.leaseMs, progress);
    } catch (err) {
      // Unwritten details go with the next beat, unless newer ones replaced them.
      this.pending ??= progress;
      if (err instanceof LeaseLostError) this.controller.abort(err);
      throw err;
    }
    if (record.cancelRequested && !this.cancelSeen) {
      this.cancelSeen = true;
      this.controller.abort(new TaskCancelledError(record.id));
    }
    await this.deps.visibility.extend({
      receiptHandle: this.message.receiptHandle,
      eventSourceARN: this.message.eventSourceARN,
      seconds: visibilitySeconds(this.leaseMs),
    });
  };

  /** The handler's `progress`: checks the details, then has a beat carry them. */
  readonly progress = (details: unknown): void => {
    const json = progressJson(details);
    if (this.stopped) return;
    this.pending = json;
    if (this.automatic || this.flushTimer !== undefined) return;
    const delay = progressFlushDelay(this.deps.clock(), this.lastWriteAt, this.intervalMs);
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      if (this.pending !== undefined && !this.stopped) this.beatInBackground('progress write');
    }, delay);
  };

  /** Beats automatically when the lease is shorter than `runMs` (plus grace). */
  start(runMs: number, logger: TaskLogger): void {
    this.logger = logger;
    if (this.leaseMs >= runMs + this.deps.leaseGraceMs) return;
    this.automatic = true;
    this.timer = setInterval(() => this.beatInBackground('automatic heartbeat'), this.intervalMs);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.flushTimer);
  }

  private beatInBackground(what: string): void {
    this.beat().catch((err: unknown) => {
      if (!(err instanceof LeaseLostError)) {
        this.logger.warn(`${what} failed; retrying at the next interval`, {
          error: describeError(err),
        });
      }
    });
  }
}
