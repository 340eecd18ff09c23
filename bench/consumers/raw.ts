/**
 * Consumer child: the raw baseline. As many plain loops as the mapping's concurrency, each:
 * receive up to a batch, run the no-op for each message, delete the batch. No state is kept.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { noop } from '../fixtures/noop.js';
import { runConsumer } from './harness.js';

await runConsumer(async ({ config, sqs, progress }) => {
  const loop = async (): Promise<void> => {
    while (!progress.signal.aborted) {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: config.queueUrl,
          MaxNumberOfMessages: config.batchSize,
          WaitTimeSeconds: 1,
        }),
      );
      const messages = out.Messages ?? [];
      if (messages.length === 0) continue;
      const t = performance.now();
      for (const _ of messages) await noop();
      const deleted = await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: config.queueUrl,
          Entries: messages.map((m, n) => ({ Id: String(n), ReceiptHandle: m.ReceiptHandle })),
        }),
      );
      progress.invocation(performance.now() - t);
      progress.batch(deleted.Successful?.length ?? 0, 0, false);
    }
  };
  await Promise.all(Array.from({ length: config.concurrency }, loop));
});
