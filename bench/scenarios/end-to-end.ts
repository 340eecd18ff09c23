/**
 * One end-to-end run of one system: provision fresh resources, enqueue `n` tasks (timed:
 * the enqueue figure), then drain them with the system's consumer in its own process
 * (timed: the processing figure), and delete the resources.
 */
import { INDEX_KEY_ATTRIBUTES } from '../config.js';
import type { ConsumerKind } from '../consumers/protocol.js';
import { type ConsumerRun, runConsumerProcess } from '../lib/consumer-process.js';
import { createExecutor, createIdempotencyTable } from '../lib/environment.js';
import type { BenchContext } from './context.js';
import {
  type ProducerRun,
  rawSendBatch,
  type TaskKind,
  tasklaneEnqueueBatch,
} from './producers.js';

/** A system under test: Tasklane or one of the baselines. */
export type System = ConsumerKind;

/** The two timed halves of one run. */
export interface EndToEndRun {
  readonly enqueue: ProducerRun;
  readonly consumer: ConsumerRun;
}

/** Per task, generous: moto spends tens of ms per Tasklane task. */
const TIMEOUT_PER_TASK_MS = 300;
const TIMEOUT_BASE_MS = 60_000;

/** Runs `n` tasks of `kind` through `system` once, and checks that each ran as expected. */
export async function runEndToEnd(
  ctx: BenchContext,
  system: System,
  n: number,
  kind: TaskKind = 'noop',
): Promise<EndToEndRun> {
  const { profile, admin } = ctx;
  // A failed baseline message returns after the queue's visibility timeout: keep it short.
  const executor = await createExecutor(admin, system, kind === 'failOnce' ? 1 : 60);
  const table =
    system === 'powertools' ? await createIdempotencyTable(admin.dynamodb, 'pt') : undefined;
  try {
    const enqueue =
      system === 'tasklane'
        ? await tasklaneEnqueueBatch(executor, n, kind)
        : await rawSendBatch(executor.queueUrl, n, { batchSize: profile.batchSize, kind });
    const consumer = await runConsumerProcess(ctx.consumers[system], {
      kind: system,
      queueUrl: executor.queueUrl,
      tableName: table?.tableName ?? executor.tableName,
      expected: n,
      timeoutMs: TIMEOUT_BASE_MS + n * TIMEOUT_PER_TASK_MS,
      batchSize: profile.batchSize,
      concurrency: profile.concurrency,
      indexKeyAttributes: INDEX_KEY_ATTRIBUTES,
    });
    const label = `${system} ${kind} n=${n}`;
    ctx.checks.equal(`${label}: tasks sent`, enqueue.sent, n);
    ctx.checks.equal(`${label}: finished in time`, consumer.timedOut, false);
    ctx.checks.equal(`${label}: messages deleted`, consumer.deleted, n);
    ctx.checks.equal(`${label}: handler runs`, consumer.executions, kind === 'noop' ? n : 2 * n);
    return { enqueue, consumer };
  } finally {
    await executor.destroy();
    await table?.destroy();
  }
}
