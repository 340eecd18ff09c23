import { mapConcurrently } from '../concurrency.js';
import { TaskStatus } from '../constants.js';
import type { Dispatcher } from '../outbox/dispatcher.js';
import type { DelayedTasks } from '../scheduler/delayed.js';
import type { TaskRecord } from '../store/record.js';
import type { PayloadOf, TaskDefinition } from '../tasks/task-definition.js';
import { type EnqueueOptions, nextSequence } from './prepare.js';

/** Outcome of an enqueue. */
export interface EnqueueResult {
  readonly id: string;
  /** False when the id already existed with the same payload: nothing new was created. */
  readonly created: boolean;
  /**
   * False when the record is stored but its message could not be sent yet because of a
   * transient fault (throttling, a 5xx). The task is not lost: it stays PENDING until a
   * re-enqueue of the same id or the sweeper sends it. A permanent fault throws
   * ConfigurationError instead.
   */
  readonly sent: boolean;
  readonly record: TaskRecord;
}

/** One entry of {@link TaskClient.enqueueBatch}. */
export interface BatchEntry<D extends TaskDefinition = TaskDefinition> {
  readonly task: D;
  readonly payload: PayloadOf<D>;
  readonly options?: EnqueueOptions;
}

/** Per-entry outcome of {@link TaskClient.enqueueBatch}, in input order. */
export type BatchEntryResult =
  | ({ readonly ok: true } & EnqueueResult)
  | { readonly ok: false; readonly error: Error };

/** What {@link enqueueAll} needs from the client. */
export interface BatchDeps {
  readonly createRecord: (
    entry: BatchEntry,
    sequence: string | undefined,
  ) => Promise<{ record: TaskRecord; created: boolean }>;
  readonly delayed: DelayedTasks;
  readonly dispatcher: Dispatcher;
}

/**
 * The body of `TaskClient.enqueueBatch`: conditional writes in parallel, then
 * SendMessageBatch in input order. A failed entry gets `ok: false`; the others go on.
 *
 * @throws ConfigurationError from the dispatcher when the queue fails permanently.
 */
export async function enqueueAll(
  entries: readonly BatchEntry[],
  deps: BatchDeps,
): Promise<BatchEntryResult[]> {
  const results: BatchEntryResult[] = new Array(entries.length);
  const toSend: { index: number; record: TaskRecord; created: boolean }[] = [];
  // Taken in input order, before the writes run concurrently.
  const sequences = entries.map(() => nextSequence());
  await mapConcurrently(entries, async (entry, index) => {
    try {
      const { record, created } = await deps.createRecord(entry, sequences[index]);
      if (record.status === TaskStatus.SCHEDULED) await deps.delayed.arrange(record, created);
      if (record.status === TaskStatus.PENDING) toSend.push({ index, record, created });
      else results[index] = { ok: true, id: record.id, created, sent: true, record };
    } catch (err) {
      results[index] = { ok: false, error: err as Error };
    }
  });
  toSend.sort((a, b) => a.index - b.index);
  const sent = await deps.dispatcher.sendAll(toSend.map((t) => t.record));
  toSend.forEach((item, n) => {
    const record = sent[n];
    results[item.index] = {
      ok: true,
      id: item.record.id,
      created: item.created,
      sent: record !== undefined,
      record: record ?? item.record,
    };
  });
  return results;
}
