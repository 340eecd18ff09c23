/** Small helpers shared by the scenario files. */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { BatchEntry } from '../../../src/client/enqueue.js';
import type { TaskClient } from '../../../src/client/task-client.js';
import type { TaskDefinition } from '../../../src/tasks/task-definition.js';
import type { Worker } from '../../../src/worker/create-worker.js';
import type { WorkPayload } from './fault-tasks.js';
import { sleep } from './random.js';

/**
 * Starts `worker.poll` with test-friendly settings; returns its stop function. A poll loop
 * that rejects is reported to `onCrash` and restarted, as a supervisor would.
 */
export function startPolling(
  worker: Worker,
  options: { concurrency?: number; batchSize?: number; onCrash?: (error: unknown) => void } = {},
): () => Promise<void> {
  const controller = new AbortController();
  const run = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      try {
        await worker.poll({
          signal: controller.signal,
          concurrency: options.concurrency ?? 2,
          batchSize: options.batchSize ?? 10,
          waitTimeSeconds: 1,
        });
      } catch (err) {
        if (options.onCrash === undefined) throw err;
        options.onCrash(err);
        await sleep(500);
      }
    }
  };
  const done = run();
  return async () => {
    controller.abort();
    await done;
  };
}

/** Messages in the queue: visible, in flight and delayed. */
export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const a = out.Attributes ?? {};
  return (
    Number(a.ApproximateNumberOfMessages ?? 0) +
    Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(a.ApproximateNumberOfMessagesDelayed ?? 0)
  );
}

/** One task to enqueue. */
export interface PlannedTask {
  readonly id: string;
  readonly payload: WorkPayload;
  readonly orderingKey?: string;
}

export interface EnqueueOptions {
  /** Entries per enqueueBatch call. @default 50 */
  readonly chunk?: number;
  /**
   * Waits before each chunk until the queue holds at most `maxDepth` messages. moto scans
   * the whole queue on every receive, so a deep queue slows everything; a producer that
   * keeps pace with its workers is also the realistic case.
   */
  readonly pace?: { readonly sqs: SQSClient; readonly queueUrl: string; readonly maxDepth: number };
  /** Called after each chunk with the ids whose enqueue returned. */
  readonly afterChunk?: (ids: readonly string[]) => Promise<void>;
  /** Rounds of retries of failed entries. @default 20 */
  readonly maxRounds?: number;
}

/**
 * Enqueues tasks in chunks with explicit ids, retrying an entry (same id, so it is
 * idempotent) until its enqueue returns. Returns the ids whose enqueue returned: the
 * population that the no-loss guarantee covers.
 */
export async function enqueueAll(
  client: TaskClient,
  task: TaskDefinition,
  tasks: readonly PlannedTask[],
  options: EnqueueOptions = {},
): Promise<{
  ids: string[];
  unsent: number;
  errors: number;
  /** Why whole enqueueBatch calls rejected (an entry's failure should not do that). */
  batchRejections: string[];
  ms: number;
}> {
  const started = Date.now();
  const chunkSize = options.chunk ?? 50;
  const accepted = new Set<string>();
  let unsent = 0;
  let errors = 0;
  const batchRejections: string[] = [];
  for (let i = 0; i < tasks.length; i += chunkSize) {
    if (options.pace !== undefined) {
      const { sqs, queueUrl, maxDepth } = options.pace;
      while ((await queueDepth(sqs, queueUrl).catch(() => maxDepth + 1)) > maxDepth) {
        await sleep(250);
      }
    }
    let pending = tasks.slice(i, i + chunkSize);
    const chunkIds: string[] = [];
    for (let round = 0; pending.length > 0 && round < (options.maxRounds ?? 20); round++) {
      const retry: PlannedTask[] = [];
      const entries: BatchEntry[] = pending.map((t) => ({
        task,
        payload: t.payload,
        options: {
          id: t.id,
          ...(t.orderingKey === undefined ? {} : { orderingKey: t.orderingKey }),
        },
      }));
      try {
        const results = await client.enqueueBatch(entries);
        results.forEach((r, n) => {
          const t = pending[n] as PlannedTask;
          if (r.ok) {
            accepted.add(t.id);
            chunkIds.push(t.id);
            if (!r.sent) unsent += 1;
          } else {
            errors += 1;
            retry.push(t);
          }
        });
      } catch (err) {
        // The whole call failed: nothing is known of any entry, so all are retried.
        batchRejections.push(`${(err as Error).name}: ${(err as Error).message}`);
        retry.push(...pending);
      }
      pending = retry;
      if (retry.length > 0) await sleep(200 * (round + 1));
    }
    await options.afterChunk?.(chunkIds);
  }
  return { ids: [...accepted], unsent, errors, batchRejections, ms: Date.now() - started };
}

export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Resolves once `check` holds, polling every 250 ms; rejects after `timeoutMs`. */
export async function eventuallyTrue(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(250);
  }
}
