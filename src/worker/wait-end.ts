/**
 * How a run ends when it suspended, or was paused (docs/adr/0048-durable-sleep-signals-pause.md):
 * what becomes of its message. A held message is hidden until the task's timer (12 hours at a
 * time at most), still at the head of its group; a released one is acknowledged, and a
 * one-time schedule wakes the task with a new message when its timer ends (or its signal's
 * sender does). When the schedule cannot be made (an EventBridge outage), the message is held
 * instead: an outage spends no attempt and loses no wake.
 */
import { AuditEvent, Defaults, TaskStatus } from '../core/constants.js';
import { describeError, LeaseLostError } from '../core/errors.js';
import type { TaskRecord, TaskWait } from '../core/record.js';
import { DurableWrites } from '../store/durable-writes.js';
import { SignalStore } from '../store/signals.js';
import type { MessageKeeping } from '../store/task-store.js';
import { ACK, auditTask, LEASE_LOST, type Outcome, type ProcessorDeps } from './deps.js';
import type { SliceEnding, WaitingTask } from './durable-waits.js';
import type { Heartbeat } from './heartbeat.js';
import { sentAt } from './hold-budget.js';

/**
 * The longest a held message is hidden at once: SQS's visibility ceiling (the controller cuts
 * it to its receive's budget, ./hold-budget.ts).
 */
const LONGEST_HOLD_MS = Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS * 1000;

/** What a run that ended in a wait (or tried to) comes to. */
export async function endWaiting(
  task: WaitingTask,
  ending: SliceEnding,
  deps: ProcessorDeps,
  heartbeat: Heartbeat,
  cancel: () => Promise<Outcome>,
): Promise<Outcome> {
  switch (ending.kind) {
    case 'lost':
      auditTask(
        deps,
        task.record,
        AuditEvent.STALE_DROPPED,
        'lease lost as the run suspended; message returned',
        task.lease.attempt,
      );
      return LEASE_LOST;
    case 'cancel':
      return cancel();
    case 'pause':
      return endPaused(
        task,
        deps,
        heartbeat,
        'paused as asked, as the run began to wait',
        ending.wait,
      );
    case 'suspended':
      return keep(task, ending.record, ending.keeping, ending.wait, deps);
  }
}

/** The message of a task that suspended on `wait`, kept as `keeping` says. */
async function keep(
  task: WaitingTask,
  record: TaskRecord,
  keeping: MessageKeeping,
  wait: TaskWait,
  deps: ProcessorDeps,
): Promise<Outcome> {
  if (keeping.held !== undefined) {
    const hold = { kind: 'retry', delayMs: holdFor(wait, deps.clock()) } as const;
    if (wait.kind !== 'signal') return hold;
    // A signal's sender writes, then shows the held message: one that read the task
    // SUSPENDED before this hold went out (the hand-back window, ADR 0067) showed it too
    // early, and the hold hid it again. So the head is read once the hold is sent, and a
    // signal counted by then wakes the task and shows its message here; one counted later
    // is shown by its own sender, after the hold.
    return { ...hold, afterHold: () => wakeAfterHold(task, record, deps) };
  }
  if (wait.until === undefined || deps.wakes === undefined) return ACK;
  try {
    // The record as suspended: its wake names the generation the suspension moved to.
    await deps.wakes.create(record, wait.until);
    return ACK;
  } catch (err) {
    deps.logger.warn('wake schedule not created; the task is woken by its held message instead', {
      taskId: record.id,
      error: describeError(err),
    });
    const held = {
      receiptHandle: task.message.receiptHandle,
      queueArn: task.message.eventSourceARN,
      heldAt: deps.clock(),
      sentAt: sentAt(task.message),
    };
    if (await deps.store.feature(DurableWrites).noteHold(record, held)) {
      return { kind: 'retry', delayMs: holdFor(wait, deps.clock()) };
    }
    // Woken (or moved on) meanwhile: its message is decided again at once.
    return { kind: 'retry', delayMs: 0 };
  }
}

/** After a signal wait's hold was sent: wakes the task if a signal came meanwhile. */
async function wakeAfterHold(
  task: WaitingTask,
  record: TaskRecord,
  deps: ProcessorDeps,
): Promise<void> {
  // `record` is the suspension's own write, never woken: the check before it is skipped for
  // a held message (./durable-waits.ts), so this read is the only one.
  const woken = await deps.store.feature(SignalStore).wakeIfSignalled(record, deps.clock());
  if (woken !== undefined) await showNow(task, deps);
}

/** How long a held message is hidden: until the timer, 12 hours at most. */
function holdFor(wait: Pick<TaskWait, 'until'>, now: number): number {
  return wait.until === undefined
    ? LONGEST_HOLD_MS
    : Math.max(0, Math.min(LONGEST_HOLD_MS, wait.until - now));
}

/**
 * RUNNING with a pause request → PAUSED under the lease: no attempt spent. An ordering key's
 * message is held (it keeps the key); another is released under the next generation, and the
 * resume sends a new one. With `wait`, the run was about to sleep or wait, and the resume puts
 * the task back SUSPENDED.
 */
export async function endPaused(
  task: WaitingTask,
  deps: ProcessorDeps,
  heartbeat: Heartbeat,
  detail: string,
  wait?: TaskWait,
): Promise<Outcome> {
  const { record, lease, message } = task;
  const keeping: MessageKeeping =
    record.orderingKey === undefined
      ? { generation: record.generation + 1 }
      : {
          held: {
            receiptHandle: message.receiptHandle,
            queueArn: message.eventSourceARN,
            heldAt: deps.clock(),
            sentAt: sentAt(message),
          },
        };
  try {
    await deps.store.feature(DurableWrites).pauseRunning(lease, detail, {
      wait,
      keeping,
      progressJson: heartbeat.takePending(),
    });
  } catch (err) {
    if (!(err instanceof LeaseLostError)) throw err;
    auditTask(deps, err.current ?? record, AuditEvent.STALE_DROPPED, err.message, lease.attempt);
    return LEASE_LOST;
  }
  if (keeping.held === undefined) return ACK;
  // A resume writes, then shows the held message: one that came while this hold waited to be
  // sent (the hand-back window, ADR 0067) was hidden by it, so the task is read once the hold
  // is sent, and its message shown here if it is no longer paused.
  return { kind: 'retry', delayMs: LONGEST_HOLD_MS, afterHold: () => showIfResumed(task, deps) };
}

/** After a paused task's hold was sent: shows its message if it was resumed meanwhile. */
async function showIfResumed(task: WaitingTask, deps: ProcessorDeps): Promise<void> {
  const now = await deps.store.get(task.record.id);
  if (now !== undefined && now.status !== TaskStatus.PAUSED) await showNow(task, deps);
}

/** Makes the task's held message visible at once: the hold sent before it is undone. */
async function showNow(task: WaitingTask, deps: ProcessorDeps): Promise<void> {
  await deps.visibility.extend({
    receiptHandle: task.message.receiptHandle,
    eventSourceARN: task.message.eventSourceARN,
    seconds: 0,
  });
}
