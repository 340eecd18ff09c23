/**
 * The README's quick start, word for word (a unit test compares them). The consumer test
 * type-checks it and runs it with `node quickstart.ts`.
 */

import { defineTask } from 'tasklane';
import { startLocalExecutor } from 'tasklane/local';
import * as z from 'zod';

export const thumbnail = defineTask('thumbnail', {
  schema: z.object({ imageId: z.string(), width: z.number().int().min(1).max(4096) }),
  retry: { maxAttempts: 5, baseDelayMs: 500 },
  timeout: 10_000,
  handler: async ({ imageId, width }, ctx) => {
    ctx.logger.info('resizing', { imageId, width, attempt: ctx.attempt });
    return { url: `s3://thumbnails/${imageId}-${width}.jpg` };
  },
});

// Starts the emulator, creates the queues and the table, and runs the worker,
// the schedule pump and the sweeper against them.
const executor = await startLocalExecutor({ tasks: [thumbnail] });
try {
  const { id } = await executor.client.enqueue(
    thumbnail,
    { imageId: 'cat', width: 256 },
    // The id is an idempotency key; tasks sharing an orderingKey run one after another.
    { id: 'thumbnail-cat-256', orderingKey: 'image-cat' },
  );
  const record = await executor.client.wait(id, { timeoutMs: 30_000 });
  console.log(record.status, record.result); // SUCCEEDED { url: 's3://thumbnails/cat-256.jpg' }
} finally {
  await executor.stop();
}
