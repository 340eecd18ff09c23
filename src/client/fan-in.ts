/**
 * Fan-out and fan-in (docs/dependencies.md): `enqueueFanIn(children, { then })` enqueues the
 * children, then one task that depends on all of them.
 */
import type { PayloadOf, TaskDefinition } from '../tasks/task-definition.js';
import type { BatchEntryResult } from './batch.js';
import type { EnqueueResult } from './enqueue.js';
import type { EnqueueOptions } from './prepare.js';

/** The task a fan-in batch ends with: it starts once every entry has SUCCEEDED. */
export interface BatchThen<D extends TaskDefinition = TaskDefinition> {
  readonly task: D;
  readonly payload: PayloadOf<D>;
  /** Its enqueue options; its `dependsOn` is the batch's entries. */
  readonly options?: Omit<EnqueueOptions, 'dependsOn' | 'runAt' | 'delay'>;
}

/** Options of `TaskClient.enqueueFanIn`. */
export interface FanInOptions {
  readonly then: BatchThen;
}

/** What `TaskClient.enqueueFanIn` returns. */
export interface FanInResult {
  /** Per-entry outcome, in input order, as a plain `enqueueBatch` returns it. */
  readonly entries: BatchEntryResult[];
  /**
   * The `then` task (its `id` is the one to wait for); undefined when an entry failed: it is
   * created only over a complete batch. Enqueue the batch again, with the same ids, to finish.
   * (Not named `then`: a result with a `then` would pass for a promise.)
   */
  readonly fanIn: EnqueueResult | undefined;
}

/**
 * Enqueues `entries`, then, when all were enqueued (now or before), `then` with `dependsOn`
 * set to their ids. The entries exist before the task that waits for them is written, so
 * none is unknown to it, and one that already finished is counted at once.
 */
export async function enqueueFanIn(
  entries: BatchEntryResult[],
  then: BatchThen,
  enqueue: (then: BatchThen, dependsOn: readonly string[]) => Promise<EnqueueResult>,
): Promise<FanInResult> {
  const ids: string[] = [];
  for (const entry of entries) {
    if (!entry.ok) return { entries, fanIn: undefined };
    ids.push(entry.id);
  }
  return { entries, fanIn: await enqueue(then, ids) };
}
