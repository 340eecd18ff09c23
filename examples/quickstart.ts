/**
 * The task definition and the Lambda worker of the README's quick start, with a producer that
 * reads its location from the environment. It is type-checked with the rest of the
 * repository, so the docs cannot drift from the API. In an application, import from
 * 'tasklane' instead.
 */
import * as z from 'zod';
import { createWorker, defineTask, TaskClient } from '../src/index.js';

// A task type, shared by producers (typed, validated enqueue) and workers (the handler).
export const thumbnail = defineTask('thumbnail', {
  schema: z.object({ imageId: z.string(), width: z.number().int().min(1).max(4096) }),
  retry: { maxAttempts: 5, baseDelayMs: 500 },
  timeout: 10_000,
  handler: async ({ imageId, width }, ctx) => {
    ctx.logger.info('resizing', { imageId, width, attempt: ctx.attempt });
    return { url: `s3://thumbnails/${imageId}-${width}.jpg` };
  },
});

// Producer: reads TASKLANE_TABLE_NAME and TASKLANE_QUEUE_URL from the environment.
export async function requestThumbnail(imageId: string): Promise<void> {
  const client = new TaskClient();
  const { id } = await client.enqueue(
    thumbnail,
    { imageId, width: 256 },
    // The id is an idempotency key: enqueueing it again returns the same task.
    // Tasks sharing an orderingKey run one after another, in enqueue order.
    { id: `thumbnail-${imageId}-256`, orderingKey: `image-${imageId}` },
  );
  const record = await client.wait(id, { timeoutMs: 30_000 });
  console.log(record); // status, attempt count, result, and every transition in `history`
}

// Worker: the Lambda function behind the queue's SQS event source mapping.
const worker = createWorker([thumbnail]);
export const handler = worker.lambdaHandler;
