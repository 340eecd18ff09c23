/**
 * Holding a parked ordering key: the dead task's message stays in flight at the head of its
 * FIFO group, hidden for SQS's longest visibility timeout (12 hours, cut to what is left of
 * its receive's 12 hours: ./hold-budget.ts) and hidden again each time it comes back, so SQS itself keeps every later message of the key from being
 * delivered. The later tasks are never received, so they spend neither attempts nor
 * receives (docs/adr/0024-parked-keys.md). Loaded with the optional features' chunk when a
 * key first needs holding (docs/adr/0070-store-parts-on-first-use.md).
 */
import { Defaults, TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import { ParkedKeys } from '../store/parked-keys.js';
import type { Outcome, ProcessorDeps } from './deps.js';
import type { HeldMessage } from './heartbeat.js';
import { sentAt } from './hold-budget.js';

/** A message that holds a key: its handle, its queue, and when it was first sent. */
export interface ParkMessage extends HeldMessage {
  readonly attributes?: { readonly SentTimestamp?: string } | undefined;
}

/** Report failed and leave the visibility alone: the hold has already set it. */
const HELD: Outcome = { kind: 'fail' };
/** The task moved on (redriven or released) meanwhile: decide its message again at once. */
const AGAIN: Outcome = { kind: 'retry', delayMs: 0 };

/**
 * Holds `dead`'s key with `message`, in three steps ordered against an operator's redrive or
 * release (which move the task first, then drop the park item, then make the message
 * visible):
 * 1. the park item is written with this receipt handle, in one transaction with a check that
 *    the task is still parked, so an operator who moved it first makes this step lose;
 * 2. the message is hidden for 12 hours;
 * 3. the task is read again: if an operator moved it between 1 and 2, the message is made
 *    visible again here, so it cannot stay hidden behind the operator's back.
 */
export async function holdParkedKey(
  dead: TaskRecord,
  message: ParkMessage,
  deps: ProcessorDeps,
): Promise<Outcome> {
  const recorded = await deps.store.feature(ParkedKeys).record(dead, {
    receiptHandle: message.receiptHandle,
    queueArn: message.eventSourceARN,
    sentAt: sentAt(message),
  });
  if (!recorded) return AGAIN;
  await deps.visibility.extend({
    receiptHandle: message.receiptHandle,
    eventSourceARN: message.eventSourceARN,
    seconds: Defaults.MAX_VISIBILITY_TIMEOUT_SECONDS,
  });
  const now = await deps.store.get(dead.id);
  if (now?.status !== TaskStatus.DEAD || now.parkedKey !== dead.parkedKey) return AGAIN;
  deps.logger.info('ordering key parked: the dead task holds it', {
    taskId: dead.id,
    taskType: dead.type,
    orderingKey: dead.parkedKey,
  });
  return HELD;
}
