/**
 * Example task definitions, shared by the `npm run dev` demo, the example worker function
 * and the tests. Each handler is deterministic and touches no network: it stands in for
 * real work with a short, payload-derived pause.
 *
 * The schemas use `zod/mini`, zod's tree-shakable form: a Lambda bundle keeps only the checks
 * it uses (about 15 KB here, where `zod` itself adds about 95 KB). Any Standard Schema
 * library works; docs/deploying.md compares their cost in the worker bundle.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod/mini';
import { defineTask, PermanentError, type TaskDefinition } from '../src/index.js';

/** Resizes an image (simulated): a few milliseconds of async work derived from the width. */
export const resizeImage = defineTask('resizeImage', {
  schema: z.object({
    imageId: z.string().check(z.minLength(1), z.maxLength(200)),
    width: z.int().check(z.minimum(1), z.maximum(10_000)),
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
    subject: z.string().check(z.minLength(1), z.maxLength(200)),
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
    chargeId: z.string().check(z.minLength(1), z.maxLength(200)),
    amountCents: z.int().check(z.positive()),
    failTimes: z._default(z.int().check(z.minimum(0), z.maximum(2)), 0),
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
  schema: z.object({ note: z._default(z.string().check(z.maxLength(200)), 'malformed input') }),
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
