/** The app's task types: shared by the producer (typed enqueue) and the worker (handlers). */
import { defineTask, PermanentError } from 'tasklane';
import * as z from 'zod';

/** Sends a welcome email (simulated). */
export const sendWelcome = defineTask('sendWelcome', {
  schema: z.object({ userId: z.string().min(1) }),
  handler: async ({ userId }, ctx) => {
    ctx.logger.info('welcome sent', { userId });
    return { messageId: `welcome-${userId}` };
  },
});

/** Charges an account. Enqueued with `orderingKey: account`, one account's charges run in order. */
export const charge = defineTask('charge', {
  schema: z.object({ account: z.string(), cents: z.number().int().positive() }),
  retry: { maxAttempts: 3, baseDelayMs: 200 },
  handler: async ({ account, cents }) => ({ account, cents, captured: true }),
});

/** Refuses for good: a PermanentError makes the task DEAD at once, with the reason. */
export const importCsv = defineTask('importCsv', {
  schema: z.object({ url: z.string() }),
  handler: async ({ url }) => {
    throw new PermanentError(`not a CSV file: ${url}`);
  },
});

export const tasks = [sendWelcome, charge, importCsv];
