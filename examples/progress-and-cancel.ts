import * as z from 'zod';
import { defineTask, TaskCancelledError, TaskClient } from '../src/index.js';

/** Imports rows in chunks, reporting progress and stopping when cancelled. */
export const importRows = defineTask('importRows', {
  schema: z.object({ file: z.string(), rows: z.number().int().positive() }),
  timeout: 10 * 60_000,
  handler: async ({ file, rows }, ctx) => {
    let done = 0;
    while (done < rows) {
      // Cancelled (or timed out, or the lease lost): stop at a chunk boundary.
      ctx.signal.throwIfAborted();
      done = Math.min(rows, done + 500);
      await new Promise((resolve) => setTimeout(resolve, 100)); // import one chunk
      // Call it as often as you like: the latest details ride on the next heartbeat.
      ctx.progress({ file, done, rows, percent: Math.round((done / rows) * 100) });
    }
    return { imported: done };
  },
});

const client = new TaskClient();

/** Starts an import and prints its progress until it ends. */
export async function importAndWatch(file: string): Promise<void> {
  const { id } = await client.enqueue(importRows, { file, rows: 100_000 });
  const record = await client.wait(id, {
    timeoutMs: 15 * 60_000,
    onProgress: (progress) => console.log('progress', progress),
  });
  console.log(id, record.status, record.result ?? record.lastError);
}

/** Cancels one import, running or not; a running one stops at its next heartbeat. */
export async function cancelImport(id: string): Promise<void> {
  const record = await client.cancel(id, 'wrong file');
  if (record.cancelRequested) console.log(`${id} is running; its worker will stop it`);
}

/** Cancels every unfinished task of a tenant's ordering key. */
export async function cancelTenant(tenant: string): Promise<void> {
  const { cancelled, requested, finished } = await client.cancelMany({ orderingKey: tenant });
  console.log({ cancelled, requested, alreadyFinished: finished.length });
}

/** In a handler, tell a cancel apart from a timeout by the signal's reason. */
export function wasCancelled(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof TaskCancelledError;
}
