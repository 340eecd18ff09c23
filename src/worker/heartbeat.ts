import { Defaults } from '../core/constants.js';
import {
  describeError,
  LeaseLostError,
  TaskCancelledError,
  TaskPausedError,
} from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { TaskLogger } from '../observability/logger.js';
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
 * Keeps a claim's lease alive from the claim to the outcome's write: `beat` (the handler's
 * `heartbeat`) extends the lease and the message's visibility. `hold` beats every third of
 * the lease while no handler runs: while the payload downloads and its checks run, and while
 * a result upload is retried (docs/adr/0034-dependency-outages.md), so a slow dependency
 * does not cost the lease. `start` hands over to the handler's run: it beats once if the
 * start used up half the grace, then beats every third of the lease when the lease is
 * shorter than the run may be. A beat refused because the lease is gone aborts the run,
 * whose outcome will then never be written.
 *
 * Each beat also carries the handler's latest `progress` details, and reads the record it
 * wrote back: a cancel request on it aborts the signal with a TaskCancelledError, a pause
 * request with a TaskPausedError (docs/adr/0048-durable-sleep-signals-pause.md). A run's
 * first report is written at once, by a beat of its own; later reports are coalesced, the
 * latest details written at most once per progress interval (a few seconds), by the next
 * write that comes (an automatic beat, a checkpoint, or a beat of their own), whatever the
 * lease (ADR 0022, and the progress interval of docs/progress-and-cancel.md). The lease's
 * writes go out one at a time, so a later write never carries older details than an earlier one.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private holdTimer: NodeJS.Timeout | undefined;
  /** When the lease was last set to run `leaseMs` from then: the claim, or the last beat. */
  private extendedAt: number;
  private flushTimer: NodeJS.Timeout | undefined;
  private pending: string | undefined;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  /** When a write last carried progress: the interval counts from it. */
  private lastProgressAt = Number.NEGATIVE_INFINITY;
  /** The write under way, which the next one waits for. */
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;
  private cancelSeen = false;
  private pauseSeen = false;
  private logger: TaskLogger;
  private readonly intervalMs: number;
  private readonly progressIntervalMs: number;

  constructor(
    private readonly deps: ProcessorDeps,
    private readonly task: { readonly record: TaskRecord; readonly lease: Lease },
    private readonly message: HeldMessage,
    private readonly leaseMs: number,
    private readonly controller: AbortController,
  ) {
    this.logger = deps.logger;
    this.intervalMs = leaseMs / 3;
    this.progressIntervalMs = deps.progressIntervalMs ?? Defaults.PROGRESS_INTERVAL_MS;
    // Built as the claim returns: the claim's own latency is within the grace, as it always was.
    this.extendedAt = deps.clock();
  }

  /** True once a beat saw a cancel request and aborted the signal for it. */
  get cancelled(): boolean {
    return this.cancelSeen;
  }

  /** True once a write saw a pause request (and no cancel request) and aborted the signal for it. */
  get paused(): boolean {
    return this.pauseSeen;
  }

  /** Extends the lease (writing any pending progress), then the message's visibility. */
  readonly beat = (): Promise<void> =>
    this.beatWith((progress) =>
      this.deps.store.extendLease(this.task.lease, this.leaseMs, progress),
    );

  /**
   * How long ago the lease was last written (a beat, a checkpoint), in ms: a durable step
   * beats first when this is long, to see a cancel request (docs/adr/0047-durable-tasks.md).
   */
  sinceLastWrite(): number {
    // The claim is the lease's first write.
    return this.deps.clock() - Math.max(this.lastWriteAt, this.extendedAt);
  }

  /** When the lease runs out, as last written (epoch ms). */
  leaseExpiresAt(): number {
    return this.extendedAt + this.leaseMs;
  }

  /**
   * A write of the lease holder that leaves the lease as it is (a checkpoint), carrying the
   * pending progress; its record is read for a cancel request as a beat's is. No visibility
   * change: the lease, and so the message's hold, is unchanged.
   *
   * @throws LeaseLostError when the lease is gone (the run is aborted too).
   */
  writeWith(write: (progress: string | undefined) => Promise<TaskRecord>): Promise<void> {
    return this.serially(async () => {
      const progress = this.takeForWrite();
      let record: TaskRecord;
      try {
        record = await write(progress);
      } catch (err) {
        this.failedWrite(err, progress);
        throw err;
      }
      this.noteCancel(record);
    });
  }

  /** Runs `write` once the lease write under way (if any) has ended. */
  private async serially(write: () => Promise<void>): Promise<void> {
    const before = this.writing;
    let done!: () => void;
    this.writing = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      await before;
      await write();
    } finally {
      done();
    }
  }

  /** The pending progress, taken by a write about to go out, which notes its time. */
  private takeForWrite(): string | undefined {
    const progress = this.pending;
    this.pending = undefined;
    this.lastWriteAt = this.deps.clock();
    if (progress !== undefined) this.lastProgressAt = this.lastWriteAt;
    return progress;
  }

  /** After a refused or failed write: its details go with the next, unless newer replaced them. */
  private failedWrite(err: unknown, progress: string | undefined): void {
    this.pending ??= progress;
    if (err instanceof LeaseLostError) this.controller.abort(err);
  }

  private noteCancel(record: TaskRecord): void {
    // A cancel wins over a pause: the signal is aborted once, for the first request seen.
    if (record.pauseRequested === true && !this.pauseSeen && !this.cancelSeen) {
      this.pauseSeen = true;
      this.controller.abort(new TaskPausedError(record.id));
    }
    if (record.cancelRequested && !this.cancelSeen) {
      this.cancelSeen = true;
      this.controller.abort(new TaskCancelledError(record.id));
    }
  }

  /** The progress no write has carried yet, taken for a write that ends the run. */
  takePending(): string | undefined {
    const progress = this.pending;
    this.pending = undefined;
    return progress;
  }

  /**
   * A beat whose lease write is `write` (given the pending progress). The record it returns
   * is read for a cancel request, and the message's visibility follows the lease.
   */
  private beatWith(write: (progress: string | undefined) => Promise<TaskRecord>): Promise<void> {
    return this.serially(async () => {
      const progress = this.takeForWrite();
      const startedAt = this.lastWriteAt;
      let record: TaskRecord;
      try {
        record = await write(progress);
      } catch (err) {
        this.failedWrite(err, progress);
        throw err;
      }
      this.extendedAt = startedAt;
      this.noteCancel(record);
      await this.deps.visibility.extend({
        receiptHandle: this.message.receiptHandle,
        eventSourceARN: this.message.eventSourceARN,
        seconds: visibilitySeconds(this.leaseMs),
      });
    });
  }

  /**
   * The handler's `progress`: checks the details, then has a write carry them: at once for
   * the run's first report (or one an interval after the last written), else when the
   * interval since the last written report is up, unless another write carries them first.
   */
  readonly progress = (details: unknown): void => {
    const json = progressJson(details);
    if (this.stopped) return;
    this.pending = json;
    if (this.flushTimer !== undefined) return;
    const delay = progressFlushDelay(
      this.deps.clock(),
      this.lastProgressAt,
      this.progressIntervalMs,
    );
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      if (this.pending !== undefined && !this.stopped) this.beatInBackground('progress write');
    }, delay);
  };

  /**
   * Beats every third of the lease, counted from its last extension, until `start` or
   * `stop`: for the work around a run that has no handler to call `heartbeat`. A start that
   * takes less than a third of the lease (the usual case) writes nothing.
   */
  hold(): void {
    clearInterval(this.holdTimer);
    const due = this.extendedAt + this.intervalMs - this.deps.clock();
    const beat = () => this.beatInBackground('lease keep-alive');
    this.holdTimer = setTimeout(
      () => {
        beat();
        this.holdTimer = setInterval(beat, this.intervalMs);
      },
      Math.max(0, due),
    );
  }

  /**
   * Hands the lease over to the handler's run: ends `hold`, and beats first when the start
   * was slow: when the lease left no longer covers the run plus half the grace, or, for a
   * lease shorter than the run, two thirds of it (the first automatic beat comes a third
   * in). Then beats automatically when the lease is shorter than `runMs` (plus grace).
   *
   * @throws LeaseLostError when that first beat finds the lease gone.
   */
  async start(runMs: number, logger: TaskLogger): Promise<void> {
    this.logger = logger;
    this.endHold();
    const automatic = this.leaseMs < runMs + this.deps.leaseGraceMs;
    const needed = automatic ? this.leaseMs - this.intervalMs : runMs + this.deps.leaseGraceMs / 2;
    if (this.extendedAt + this.leaseMs - this.deps.clock() < needed) await this.beat();
    if (!automatic) return;
    this.timer = setInterval(() => this.beatInBackground('automatic heartbeat'), this.intervalMs);
  }

  /** Ends the handler's beats; `hold` may keep the lease for the work after the run. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.flushTimer);
    this.endHold();
  }

  private endHold(): void {
    clearTimeout(this.holdTimer);
    clearInterval(this.holdTimer);
    this.holdTimer = undefined;
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
