/**
 * A producer Lambda. `executor.connectProducer(producer, { read: true })` in app.ts sets every
 * variable its TaskClient reads, for what the executor deploys (delayed tasks included), and
 * grants what it calls: nothing here names a table, queue or schedule group.
 */
import { TaskClient } from 'tasklane';
import { sendWelcome } from './tasks.ts';

// A delay above a second gets a one-time schedule in the executor's delayed group.
const client = new TaskClient({ scheduleThresholdMs: 1_000 });

/** Enqueues a welcome now and another in a minute; returns their ids. */
export async function handler(event: { userId: string }): Promise<{ now: string; later: string }> {
  const now = await client.enqueue(sendWelcome, { userId: event.userId });
  const later = await client.enqueue(
    sendWelcome,
    { userId: `${event.userId}-later` },
    { delay: 60_000 },
  );
  return { now: now.id, later: later.id };
}
