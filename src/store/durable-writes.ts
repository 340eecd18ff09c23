/**
 * The writes of a durable run (docs/adr/0047-durable-tasks.md,
 * docs/adr/0048-durable-sleep-signals-pause.md): the lease holder's checkpoint, continuation,
 * suspension and pause, the note of a message kept for a waiting task, and the sweeper's wake
 * of a suspended task whose wake was lost. Each is one row of the transition table
 * (transitions/durable.ts, transitions/suspension.ts) sent as its one conditional write.
 *
 * A part of the store made on first use (`TaskStore.feature(DurableWrites)`), so that a worker
 * whose tasks never checkpoint, continue, sleep, wait or pause does not load it at start
 * (docs/adr/0070-store-parts-on-first-use.md).
 */
import type { HeldMessage, TaskRecord, TaskWait } from '../core/record.js';
import type { WriteContext } from './store-context.js';
import * as durable from './transitions/durable.js';
import { writeTransition } from './transitions/move.js';
import type { Lease } from './transitions/row.js';
import * as suspension from './transitions/suspension.js';
import { send } from './transitions/writer.js';

/** What a run paused at its pause request keeps. */
export interface PauseRunningOptions {
  readonly wait?: TaskWait | undefined;
  readonly keeping: suspension.MessageKeeping;
  readonly progressJson?: string | undefined;
}

/** The durable run's writes on one table. */
export class DurableWrites {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * RUNNING → RUNNING with the handler's checkpoint stored and any pending progress written:
   * one write, fenced by the lease (a stale holder's save is a LeaseLostError), which leaves
   * the lease as it is (`leaseExpiresAt`, as last written). The returned record shows a
   * cancel request.
   */
  saveCheckpoint(
    lease: Lease,
    leaseExpiresAt: number,
    checkpoint: durable.StoredCheckpoint,
    progressJson?: string,
  ): Promise<TaskRecord> {
    const input = { lease, leaseExpiresAt, checkpoint, progressJson };
    return writeTransition(this.ctx, durable.saveCheckpoint, input);
  }

  /**
   * RUNNING → QUEUED by a handler's `ctx.continue()`: no attempt spent, one more
   * continuation counted. Fenced by the lease. The caller keeps the message, which runs the
   * next slice from the head of its group.
   */
  continueRun(
    lease: Lease,
    continuations: number,
    maxContinuations: number,
    progressJson?: string,
  ): Promise<TaskRecord> {
    const input = { lease, continuations, maxContinuations, progressJson };
    return writeTransition(this.ctx, durable.continueRun, input);
  }

  /**
   * RUNNING → SUSPENDED by a handler's `ctx.sleep` or `ctx.waitForSignal`: no attempt spent;
   * the record keeps `wait`, and the message is held (`keeping.held`) or released under a new
   * generation (`keeping.generation`). Fenced by the lease, and refused while a cancel or
   * pause request is pending or, for a signal wait, once a signal came after `signalsSeen`.
   */
  suspend(
    lease: Lease,
    wait: TaskWait,
    keeping: suspension.MessageKeeping,
    progressJson?: string,
  ): Promise<TaskRecord> {
    const input = { lease, wait, progressJson, ...keeping };
    return writeTransition(this.ctx, suspension.suspend, input);
  }

  /**
   * RUNNING with a pause request → PAUSED, by the lease holder that saw it: no attempt spent;
   * with `wait`, the run was about to sleep or wait, and the resume puts it back SUSPENDED.
   */
  pauseRunning(lease: Lease, detail: string, options: PauseRunningOptions): Promise<TaskRecord> {
    const { wait, keeping, progressJson } = options;
    const input = { lease, detail, wait, progressJson, ...keeping };
    return writeTransition(this.ctx, suspension.pauseRunning, input);
  }

  /**
   * Notes the message a worker now keeps in flight for a SUSPENDED or PAUSED task (its receipt
   * handle), if the task is still the one `seen` (same status, generation and attempt, not
   * woken). @returns false when it moved on: the worker shows the message again.
   */
  async noteHold(
    seen: Pick<TaskRecord, 'id' | 'status' | 'generation' | 'attempt'>,
    held: HeldMessage,
  ): Promise<boolean> {
    return (await send(this.ctx, suspension.noteHold, { seen, held })).accepted;
  }

  /**
   * Notes that the sweeper wakes a SUSPENDED task whose wake was lost: under the next
   * generation, due again at `nextAt` in the status index. @returns false when the task
   * moved on.
   */
  async noteWake(seen: Pick<TaskRecord, 'id' | 'generation'>, nextAt: number): Promise<boolean> {
    return (await send(this.ctx, suspension.noteWake, { seen, nextAt })).accepted;
  }
}
