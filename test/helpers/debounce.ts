/**
 * Debounce test steps shared by the files that check when a debounced task's window ends
 * (docs/adr/0064-a-given-back-claim-ends-the-debounce-window.md).
 */
import type { SQSRecord } from 'aws-lambda';
import type { Worker } from '../../src/worker/create-worker.js';
import { eventually, type TestExecutor } from './executor.js';

/**
 * Waits out a debounced task's window (`windowMs`), then hands its due message to `worker`
 * once, as the event source mapping would: one delivery, whatever the handler does with it.
 */
export async function deliverOnceAfterWindow(
  executor: TestExecutor,
  worker: Worker,
  windowMs: number,
): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, windowMs + 100));
  let message: SQSRecord | undefined;
  await eventually(async () => {
    [message] = await executor.receive();
    return message !== undefined;
  });
  if (message === undefined) throw new Error('no message');
  await worker.processBatch([message]);
}
