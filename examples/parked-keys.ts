import * as z from 'zod';
import { createWorker, defineTask, PermanentError, TaskClient } from '../src/index.js';

/**
 * Ledger postings of one account must apply in order: if one cannot be applied, the later
 * ones must wait for it rather than run past it. `onDead: 'park'` holds the account's key
 * when a posting dies.
 */
export const postEntry = defineTask('ledger.post', {
  schema: z.object({ account: z.string(), cents: z.number().int() }),
  retry: { maxAttempts: 5 },
  onDead: 'park',
  handler: async ({ account, cents }, ctx) => {
    if (cents === 0) throw new PermanentError('a zero posting is a bug upstream');
    ctx.logger.info('posted', { account, cents });
  },
});

/** Run by the poll loop or the Lambda handler, as any worker. */
export const worker = createWorker([postEntry]);

// Reads TASKLANE_TABLE_NAME and TASKLANE_QUEUE_URL (and the DLQ URL) from the environment.
const client = new TaskClient();

export async function post(account: string, cents: number): Promise<string> {
  // The ordering key is the account: its postings run one after another, in enqueue order.
  const { id } = await client.enqueue(postEntry, { account, cents }, { orderingKey: account });
  return id;
}

/** The operator's side: see what is parked, fix the cause, then redrive or release. */
export async function repair(): Promise<void> {
  for (const parked of await client.parkedKeys()) {
    console.log(
      `${parked.orderingKey} is held by ${parked.task.id}: ${parked.task.deadReason ?? ''}`,
    );
  }
  // After a fix: the dead posting runs again first, then the account's later postings.
  const { redriven } = await client.redrive({ orderingKey: 'acct-17' });
  console.log('redriven in place:', redriven);
  // Or give up on the dead posting (it stays DEAD) and let the later ones through.
  const { released, taskId } = await client.releaseKey('acct-23');
  console.log(released ? `released acct-23, ${taskId} stays DEAD` : 'acct-23 was not parked');
}
