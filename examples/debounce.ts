import * as z from 'zod';
import { createWorker, defineTask, TaskClient } from '../src/index.js';

// Re-index a document once its edits settle: many saves, one indexing run.
export const indexDocument = defineTask('indexDocument', {
  schema: z.object({ docId: z.string(), revision: z.number() }),
  handler: async ({ docId, revision }, ctx) => {
    ctx.logger.info('document indexed', { docId, revision });
  },
});

// Tell a user about new comments at most once every 10 minutes.
export const notifyComments = defineTask('notifyComments', {
  schema: z.object({ userId: z.string(), firstCommentId: z.string() }),
  handler: async ({ userId, firstCommentId }, ctx) => {
    ctx.logger.info('comments notified', { userId, firstCommentId });
  },
});

const client = new TaskClient();

export async function onSave(docId: string, revision: number): Promise<string> {
  // 'last': each save replaces the payload and restarts the 30-second window.
  const result = await client.enqueue(
    indexDocument,
    { docId, revision },
    { debounce: { key: docId, windowMs: 30_000, mode: 'last' } },
  );
  // The same id for every save of the window; `absorbed` says whether this one made it.
  return result.absorbed === true ? `folded into ${result.id}` : `created ${result.id}`;
}

export async function onComment(userId: string, commentId: string): Promise<void> {
  // 'first': the first comment's task runs 10 minutes later; the comments until then are
  // dropped into it. One that comes once the task has started opens a new window.
  await client.enqueue(
    notifyComments,
    { userId, firstCommentId: commentId },
    { debounce: { key: userId, windowMs: 600_000, mode: 'first' }, orderingKey: userId },
  );
}

export async function inspect(id: string): Promise<void> {
  const task = await client.get(id);
  // The key, the mode, how many enqueues it absorbed; the window ends at runAt.
  console.log(task?.debounce, task?.runAt === undefined ? '' : new Date(task.runAt));
}

// The worker needs nothing more: a debounced task is an ordinary delayed task.
export const worker = createWorker([indexDocument, notifyComments]);
