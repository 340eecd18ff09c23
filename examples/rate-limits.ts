import * as z from 'zod';
import { createWorker, defineTask, TaskClient } from '../src/index.js';

// At most 100 calls a minute to the partner's API, whichever worker makes them.
export const syncContact = defineTask('syncContact', {
  schema: z.object({ contactId: z.string() }),
  rateLimit: { limit: 100, intervalMs: 60_000 },
  handler: async ({ contactId }, ctx) => {
    ctx.logger.info('contact synced', { contactId });
  },
});

// At most 10 exports a minute per tenant: each ordering key has its own bucket.
export const exportReport = defineTask('exportReport', {
  schema: z.object({ tenant: z.string(), month: z.string() }),
  rateLimit: { limit: 10, intervalMs: 60_000, perKey: true },
  handler: async ({ tenant, month }, ctx) => {
    ctx.logger.info('report exported', { tenant, month });
  },
});

const client = new TaskClient();

export async function syncAll(contactIds: readonly string[]): Promise<void> {
  // Enqueue as fast as you like: the limit applies when the tasks start.
  await client.enqueueBatch(
    contactIds.map((contactId) => ({ task: syncContact, payload: { contactId } })),
  );
}

export async function exportMonth(tenant: string, month: string): Promise<void> {
  // The tenant is the ordering key, and so the key of its bucket.
  await client.enqueue(exportReport, { tenant, month }, { orderingKey: tenant });
}

// The worker needs nothing more: the buckets live in the task table.
export const worker = createWorker([syncContact, exportReport]);
