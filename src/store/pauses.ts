/**
 * The operator's pause and resume of tasks (docs/adr/0048-durable-sleep-signals-pause.md):
 * each one row of the transition table (transitions/pausing.ts), fenced by the record the
 * operator read. A RUNNING task is asked with a mark, which its lease holder honours.
 */
import { AuditEvent, TaskStatus } from '../core/constants.js';
import { TransitionRejectedError } from '../core/errors.js';
import type { HistoryEntry, TaskRecord, TaskWait } from '../core/record.js';
import { auditEntry } from '../observability/audit.js';
import { runningRequestEntry } from './history.js';
import { fromItem } from './record.js';
import { SignalStore, signalCount } from './signals.js';
import type { WriteContext } from './store-context.js';
import { writeTransition } from './transitions/move.js';
import * as pausing from './transitions/pausing.js';
import { recordOf, send } from './transitions/writer.js';

/** The record an operator read, as a pause or resume is fenced by it. */
export type PauseSeen = Pick<
  TaskRecord,
  | 'id'
  | 'type'
  | 'status'
  | 'attempt'
  | 'generation'
  | 'history'
  | 'runAt'
  | 'wait'
  | 'signals'
  | 'stepEpoch'
  | 'createdAt'
>;

/** What a pause request did. */
export type PauseRequest =
  | { readonly kind: 'requested'; readonly record: TaskRecord }
  | { readonly kind: 'already-requested'; readonly record: TaskRecord };

/** Pauses and resumes of one task table. */
export class PauseStore {
  constructor(private readonly ctx: WriteContext) {}

  /**
   * SCHEDULED | PENDING | QUEUED | SUSPENDED → PAUSED, remembering where it was.
   *
   * @throws TransitionRejectedError with the record DynamoDB held when it moved since `seen`.
   */
  pause(seen: PauseSeen, reason?: string, principal?: string): Promise<TaskRecord> {
    return writeTransition(this.ctx, pausing.pause, { seen, reason, principal });
  }

  /**
   * Marks a RUNNING task `pauseRequested`, with the request's history entry: its lease holder
   * ends the run PAUSED at its next step, checkpoint or heartbeat. Asking twice writes once.
   *
   * @throws TransitionRejectedError when the task is not RUNNING; `current` says what it is.
   */
  async requestPause(
    seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'>,
    reason?: string,
    principal?: string,
  ): Promise<PauseRequest> {
    const now = this.ctx.clock();
    const entry = runningRequestEntry(
      AuditEvent.PAUSE_REQUESTED,
      now,
      seen.attempt,
      reason,
      principal,
    );
    const sent = await send(this.ctx, pausing.requestPause, { id: seen.id, entry }, now);
    if (sent.accepted) {
      const record = fromItem(sent.item ?? {});
      auditEntry(this.ctx.logger, record, entry);
      return { kind: 'requested', record };
    }
    const current = recordOf(sent.current);
    if (current?.status === TaskStatus.RUNNING && current.pauseRequested === true) {
      return { kind: 'already-requested', record: current };
    }
    throw new TransitionRejectedError(pausing.requestPause.name, seen.id, current);
  }

  /**
   * Takes back a pause request the lease holder has not honoured yet (RUNNING, or QUEUED or
   * PENDING after a retry or requeue), with the resume's history entry.
   *
   * @returns the record as written, or undefined when there was no such request.
   */
  async withdrawPause(
    seen: Pick<TaskRecord, 'id' | 'type' | 'attempt' | 'status'>,
    principal?: string,
  ): Promise<TaskRecord | undefined> {
    const now = this.ctx.clock();
    const entry: HistoryEntry = {
      event: AuditEvent.RESUMED,
      at: now,
      attempt: seen.attempt,
      status: seen.status,
      detail: 'pause request withdrawn before the run honoured it',
      ...(principal === undefined ? {} : { principal }),
    };
    const sent = await send(this.ctx, pausing.withdrawPause, { id: seen.id, entry }, now);
    if (!sent.accepted) return undefined;
    const record = fromItem(sent.item ?? {});
    auditEntry(this.ctx.logger, record, entry);
    return record;
  }

  /**
   * PAUSED → where it was: PENDING (it was due), SCHEDULED (its `runAt` ahead) or SUSPENDED
   * (still sleeping or waiting; due at once when a signal came meanwhile), each under the
   * row that says so.
   *
   * @throws TransitionRejectedError with the record DynamoDB held when it moved since `seen`.
   */
  resume(seen: PauseSeen, pausedFrom: TaskStatus, principal?: string): Promise<TaskRecord> {
    const input = { seen, principal };
    if (pausedFrom === TaskStatus.SCHEDULED) {
      return writeTransition(this.ctx, pausing.resumeScheduled, {
        ...input,
        runAt: seen.runAt ?? this.ctx.clock(),
      });
    }
    if (pausedFrom === TaskStatus.SUSPENDED && seen.wait !== undefined) {
      return this.resumeSuspended(seen, seen.wait, principal);
    }
    return writeTransition(this.ctx, pausing.resume, input);
  }

  /**
   * PAUSED → SUSPENDED: `woken` when the task's signal head counts a signal after the wait's
   * position (docs/adr/0066-signal-head-off-the-task-item.md). A sender no longer writes the
   * task's item, so the resume is fenced only by an earlier version's count on the record; a
   * signal counted after the head was read (its sender saw the task PAUSED, and does not
   * wake it) is found by a second read of the head after the write, which then wakes the task.
   */
  private async resumeSuspended(
    seen: PauseSeen,
    wait: TaskWait,
    principal: string | undefined,
  ): Promise<TaskRecord> {
    const reads = new SignalStore(this.ctx);
    const count =
      wait.kind === 'signal' ? signalCount(seen, await reads.head(seen), wait.epoch) : 0;
    const woken = wait.kind === 'signal' && count > (wait.signalsSeen ?? 0);
    const resumed = await writeTransition(this.ctx, pausing.resumeSuspended, {
      seen,
      principal,
      wait,
      woken,
      signals: seen.signals ?? 0,
    });
    if (woken || wait.kind !== 'signal') return resumed;
    return (await reads.wakeIfSignalled(resumed, this.ctx.clock())) ?? resumed;
  }
}
