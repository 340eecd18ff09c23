/**
 * The example of docs/lanes.md: an executor with a `bulk` lane (few slow imports at a time)
 * and an `urgent` lane (many quick alerts), task types routed to them, a producer and a
 * worker. Type-checked in CI with the rest of the repository; in an application, import
 * from 'tasklane/cdk' and 'tasklane'.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as z from 'zod';
import { TaskExecutor } from '../src/cdk/index.js';
import { createWorker, defineTask, locationFromStackOutputs, TaskClient } from '../src/index.js';

/** The stack: one table, one sweeper, one schedule group; a queue, DLQ and mapping per lane. */
export function lanesApp(): App {
  const app = new App();
  const stack = new Stack(app, 'Shop');
  new TaskExecutor(stack, 'Tasks', {
    workerEntry: 'src/worker.ts',
    maxConcurrency: 10,
    lanes: {
      // The types without a lane; these settings are the executor's own.
      default: { maxConcurrency: 10 },
      // Two imports at a time, ten messages per invocation: they never crowd out the rest.
      bulk: { maxConcurrency: 2, batchSize: 10 },
      // Up to 50 alerts at once, whatever the bulk lane's backlog.
      urgent: { maxConcurrency: 50 },
    },
  });
  return app;
}

// A type names its lane; a type without one runs in the default lane.
export const importCatalog = defineTask('importCatalog', {
  schema: z.object({ supplier: z.string(), file: z.string() }),
  lane: 'bulk',
  timeout: 600_000,
  handler: async ({ supplier, file }, ctx) => {
    ctx.logger.info('catalog imported', { supplier, file });
  },
});

export const sendAlert = defineTask('sendAlert', {
  schema: z.object({ userId: z.string(), text: z.string() }),
  lane: 'urgent',
  handler: async ({ userId }, ctx) => {
    ctx.logger.info('alert sent', { userId });
  },
});

export const confirmOrder = defineTask('confirmOrder', {
  schema: z.object({ orderId: z.string() }),
  handler: async ({ orderId }, ctx) => {
    ctx.logger.info('order confirmed', { orderId });
  },
});

/**
 * A producer configured from the stack outputs (`cdk deploy --outputs-file`): they carry
 * every lane's queue, so each task goes to its lane's queue. Configured from the environment
 * instead, it reads TASKLANE_LANE_QUEUE_URLS.
 */
export async function produce(outputs: Record<string, string>): Promise<void> {
  const client = new TaskClient(locationFromStackOutputs(outputs));
  await client.enqueue(importCatalog, { supplier: 'acme', file: 's3://imports/acme.csv' });
  await client.enqueue(sendAlert, { userId: 'u-1', text: 'Your parcel is at the door' });
  // The lane is on the record: get and list show it.
  const { id } = await client.enqueue(confirmOrder, { orderId: 'o-42' });
  const task = await client.get(id);
  console.log(task?.lane ?? 'default');
}

// One worker function serves every lane: each lane's mapping invokes it with its own messages.
export const worker = createWorker([importCatalog, sendAlert, confirmOrder]);

/** Outside Lambda, a poll loop can take some lanes only, each polled by its own loop. */
export function pollBulk(signal: AbortSignal): Promise<void> {
  return worker.poll({ signal, lanes: ['bulk'], concurrency: 2 });
}
