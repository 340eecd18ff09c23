/**
 * Example task definitions, shared by the `npm run dev` demo, the example worker function
 * and the tests. Each handler is deterministic and touches no network: it stands in for
 * real work with a short, payload-derived pause.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { defineTask, PermanentError, type TaskDefinition } from '../src/index.js';

/** Resizes an image (simulated): a few milliseconds of async work derived from the width. */
export const resizeImage = defineTask('resizeImage', {
  schema: z.object({
    imageId: z.string().min(1).max(200),
    width: z.number().int().min(1).max(10_000),
  }),
  handler: async ({ imageId, width }, ctx) => {
    await sleep(2 + (width % 8), undefined, { signal: ctx.signal });
    return { imageId, width, url: `memory://thumbnails/${imageId}-${width}w.jpg` };
  },
});

/** Sends an email (simulated): returns a message id derived from the task id. */
export const sendEmail = defineTask('sendEmail', {
  schema: z.object({
    to: z.email(),
    subject: z.string().min(1).max(200),
  }),
  handler: async ({ to, subject }, ctx) => {
    await sleep(3, undefined, { signal: ctx.signal });
    ctx.logger.debug('email sent', { to, subject });
    return { messageId: `msg-${ctx.taskId}` };
  },
});

/**
 * Charges a card against a flaky processor: attempts 1..`failTimes` throw an ordinary Error,
 * the next one succeeds. Shows retries with backoff; the delays are short so demos are quick.
 */
export const flakyCharge = defineTask('flakyCharge', {
  schema: z.object({
    chargeId: z.string().min(1).max(200),
    amountCents: z.number().int().positive(),
    failTimes: z.number().int().min(0).max(2).default(0),
  }),
  retry: { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 1_000 },
  handler: async ({ chargeId, amountCents, failTimes }, ctx) => {
    if (ctx.attempt <= failTimes) {
      throw new Error(`processor unavailable (simulated failure ${ctx.attempt} of ${failTimes})`);
    }
    return { chargeId, amountCents, captured: true, attempt: ctx.attempt };
  },
});

/** Always fails with a PermanentError, so the task goes DEAD at once with a clear reason. */
export const poison = defineTask('poison', {
  schema: z.object({ note: z.string().max(200).default('malformed input') }),
  handler: ({ note }) => {
    throw new PermanentError(`poison pill: ${note}`);
  },
});

/** Every example definition, for `createWorker(exampleTasks)`. */
export const exampleTasks: readonly TaskDefinition[] = [
  resizeImage,
  sendEmail,
  flakyCharge,
  poison,
];
