/**
 * Holding the message of a SUSPENDED or PAUSED task (docs/adr/0048-durable-sleep-signals-pause.md):
 * kept in flight, hidden until the task's timer ends (12 hours at a time at most) or, for a
 * paused task of an ordering key, 12 hours at a time, so that it keeps the task's place at the
 * head of its FIFO group, as a parked key's message does (docs/adr/0024-parked-keys.md). Its
 * receipt handle is noted on the record, so that a signal or a resume can make it visible at
 * once. The steps are ordered against theirs (which write the record first, then show the
 * message):
 * 1. the handle is noted, if the task is still the one seen (the write refuses otherwise);
 * 2. the message is hidden;
 * 3. the task is read again: if it moved on (woken, resumed, cancelled) between 1 and 2, the
 *    message is shown at once here, so it cannot stay hidden behind their back; a task waiting
 *    for a signal has its signal head read too (a signal writes only its head, ADR 0066).
 *
 * Loaded with the optional features' chunk when a message first needs holding
 * (docs/adr/0070-store-parts-on-first-use.md).
 */
import type { TaskRecord } from '../core/record.js';
import { DurableWrites } from '../store/durable-writes.js';
import { SignalStore } from '../store/signals.js';
import type { Outcome, ProcessorDeps } from './deps.js';
import { sentAt } from './hold-budget.js';
import type { ParkMessage } from './parked.js';
import { visibilitySeconds } from './visibility.js';

/** Report failed and leave the visibility alone: the hold has set it. */
const HELD: Outcome = { kind: 'fail' };
/** The task moved on meanwhile: decide its message again at once. */
const AGAIN: Outcome = { kind: 'retry', delayMs: 0 };

/**
 * The task `seen` woken by a signal its head holds (ADR 0066), before its message is held;
 * undefined when there is none.
 */
export function wakeIfSignalled(
  seen: TaskRecord,
  deps: Pick<ProcessorDeps, 'store' | 'clock'>,
): Promise<TaskRecord | undefined> {
  return deps.store.feature(SignalStore).wakeIfSignalled(seen, deps.clock());
}

/** Holds `seen`'s message for `delayMs` (see the module's comment). */
export async function holdMessage(
  seen: TaskRecord,
  message: ParkMessage,
  delayMs: number,
  deps: ProcessorDeps,
): Promise<Outcome> {
  const held = {
    receiptHandle: message.receiptHandle,
    queueArn: message.eventSourceARN,
    heldAt: deps.clock(),
    sentAt: sentAt(message),
  };
  if (!(await deps.store.feature(DurableWrites).noteHold(seen, held))) return AGAIN;
  await deps.visibility.extend({
    receiptHandle: message.receiptHandle,
    eventSourceARN: message.eventSourceARN,
    seconds: Math.max(1, visibilitySeconds(delayMs)),
  });
  const now = await deps.store.get(seen.id);
  const same =
    now !== undefined &&
    now.status === seen.status &&
    now.generation === seen.generation &&
    now.attempt === seen.attempt &&
    now.woken !== true;
  if (!same) return AGAIN;
  // A signal writes its head, not the task's item (ADR 0066): one whose sender showed the
  // message between the claim's read of the head and this hide is found in the head now.
  return (await wakeIfSignalled(now, deps)) === undefined ? HELD : AGAIN;
}
