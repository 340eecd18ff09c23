import pLimit from 'p-limit';
import { TaskStatus } from '../core/constants.js';
import type { ConfigurationError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import type { DelayedTasks } from '../scheduler/delayed.js';
import type { Dispatcher } from '../scheduler/dispatcher.js';
import type { PayloadOf, TaskDefinition } from '../tasks/task-definition.js';
import { ChunkGates } from './chunk-gates.js';
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
   * ConfigurationError instead. True when there is nothing to send yet: a WAITING task's
   * message is sent when its last parent releases it (docs/dependencies.md).
   */
  readonly sent: boolean;
  readonly record: TaskRecord;
  /**
   * With `debounce` only: true when this enqueue was folded into the key's waiting task
   * (`id` is that task's, `created` is false), false when it created the task.
   */
  readonly absorbed?: boolean;
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
  ) => Promise<{ record: TaskRecord; created: boolean; absorbed?: boolean }>;
  readonly delayed: DelayedTasks;
  readonly dispatcher: Dispatcher;
}

/** The meter label of enqueue's requests (docs/cost.md). */
export const ENQUEUE_USAGE = 'enqueue';

/**
 * The body of `TaskClient.enqueue`: writes the record, then arranges its schedule (delayed)
 * or sends its message (due now).
 */
export async function enqueueOne(entry: BatchEntry, deps: BatchDeps): Promise<EnqueueResult> {
  return deliverWritten(await deps.createRecord(entry, nextSequence()), deps);
}

/** What follows the record's write: arranging its schedule, or sending its message. */
async function deliverWritten(
  written: { record: TaskRecord; created: boolean; absorbed?: boolean },
  deps: BatchDeps,
): Promise<EnqueueResult> {
  const { record, created, absorbed } = written;
  const debounced = absorbed === undefined ? {} : { absorbed };
  if (absorbed === true) return absorbedInto(record, deps);
  if (record.status === TaskStatus.SCHEDULED) {
    // The record as it is now: a cancel while the schedule was made is reported, not hidden.
    const arranged = await deps.delayed.arrange(record, created);
    return { id: record.id, created, sent: true, record: arranged.record, ...debounced };
  }
  if (record.status !== TaskStatus.PENDING) {
    return { id: record.id, created, sent: true, record, ...debounced };
  }
  const sent = await deps.dispatcher.send(record);
  return { id: record.id, created, sent: sent !== undefined, record: sent ?? record, ...debounced };
}

/**
 * The result of an enqueue folded into a waiting debounced task. Its creator sends its
 * message (or the sweeper does); a SCHEDULED one not yet confirmed is confirmed first, as a
 * re-enqueue of its id would be, so the creator's rollback cannot drop it (ADR 0009).
 */
async function absorbedInto(record: TaskRecord, deps: BatchDeps): Promise<EnqueueResult> {
  const current =
    record.status === TaskStatus.SCHEDULED && !record.scheduleConfirmed
      ? (await deps.delayed.arrange(record, false)).record
      : record;
  return { id: record.id, created: false, sent: true, record: current, absorbed: true };
}

/** How many chunks of 10 entries an enqueueBatch has in flight at once (writes or send). */
export const CHUNKS_IN_FLIGHT = 8;

/** Entries per chunk: one SendMessageBatch. */
const CHUNK_SIZE = 10;

interface Written {
  readonly index: number;
  readonly record: TaskRecord;
  readonly created: boolean;
  /** A debounced entry that created its task: `absorbed: false` in its result. */
  readonly debounced: boolean;
}

/**
 * The body of `TaskClient.enqueueBatch`, pipelined (docs/adr/0025-run-time-cost-metrics.md).
 * The entries are cut into chunks of 10 in input order. Each chunk writes its records
 * concurrently and, as soon as they land, sends its PENDING tasks in one SendMessageBatch;
 * up to {@link CHUNKS_IN_FLIGHT} chunks run at once. A chunk's send waits only for the sends
 * of earlier chunks that share a message group with it, so SQS accepts each group's
 * messages in input order, and once a task's send fails the later tasks of its group (in
 * later chunks) are held back PENDING for the sweeper, as `Dispatcher.sendAll` does.
 * A debounced entry that created its task is sent with its chunk like any other, so it keeps
 * its place in its key's order; one folded into a waiting task sends nothing.
 * Sequences are taken in input order before anything runs. A failed entry gets `ok: false`;
 * the others go on.
 *
 * @throws ConfigurationError from the dispatcher when the queue fails permanently; chunks
 *   not yet sent by then send nothing, and their records stay PENDING for the sweeper.
 */
export async function enqueueAll(
  entries: readonly BatchEntry[],
  deps: BatchDeps,
): Promise<BatchEntryResult[]> {
  const results: BatchEntryResult[] = new Array(entries.length);
  const sequences = entries.map(() => nextSequence());
  const chunkCount = Math.ceil(entries.length / CHUNK_SIZE);
  const gates = new ChunkGates(chunkCount);
  const blocked = new Set<string>();
  let permanent: ConfigurationError | undefined;

  const writeOne = async (index: number): Promise<Written | undefined> => {
    try {
      const written = await deps.createRecord(entries[index] as BatchEntry, sequences[index]);
      const { record, created, absorbed } = written;
      if (absorbed === true) {
        // Folded into the key's waiting task: its creator sends it, in its own place.
        results[index] = { ok: true, ...(await absorbedInto(record, deps)) };
        return undefined;
      }
      // A debounced entry that created its task is sent with the chunk, in batch order,
      // like any entry: it takes its place among the entries of its ordering key (ADR 0033).
      const debounced = absorbed === false;
      if (record.status === TaskStatus.PENDING) return { index, record, created, debounced };
      const current =
        record.status === TaskStatus.SCHEDULED
          ? (await deps.delayed.arrange(record, created)).record
          : record;
      results[index] = {
        ok: true,
        id: record.id,
        created,
        sent: true,
        record: current,
        ...(debounced ? { absorbed: false } : {}),
      };
    } catch (err) {
      results[index] = { ok: false, error: err as Error };
    }
    return undefined;
  };

  const settle = (item: Written, sent: TaskRecord | undefined): void => {
    results[item.index] = {
      ok: true,
      id: item.record.id,
      created: item.created,
      sent: sent !== undefined,
      record: sent ?? item.record,
      ...(item.debounced ? { absorbed: false } : {}),
    };
  };

  const runChunk = async (chunk: number): Promise<void> => {
    const start = chunk * CHUNK_SIZE;
    const indexes = Array.from(
      { length: Math.min(CHUNK_SIZE, entries.length - start) },
      (_, n) => start + n,
    );
    const written = (await Promise.all(indexes.map(writeOne))).filter(
      (w): w is Written => w !== undefined,
    );
    const groups = new Set(written.map((w) => w.record.messageGroupId));
    gates.written(chunk, groups);
    await gates.earlierSendsSharing(chunk, groups);
    const sendable = written.filter((w) => !blocked.has(w.record.messageGroupId));
    for (const held of written.filter((w) => blocked.has(w.record.messageGroupId))) {
      settle(held, undefined);
    }
    if (sendable.length === 0) return;
    if (permanent !== undefined) {
      for (const item of sendable) settle(item, undefined);
      return;
    }
    const outcome = await deps.dispatcher.sendBatch(sendable.map((w) => w.record));
    if (outcome.permanent !== undefined) permanent ??= outcome.permanent;
    sendable.forEach((item, n) => {
      const sent = outcome.sent[n];
      if (sent === undefined) blocked.add(item.record.messageGroupId);
      settle(item, sent);
    });
  };

  const limit = pLimit(CHUNKS_IN_FLIGHT);
  await Promise.all(
    Array.from({ length: chunkCount }, (_, chunk) =>
      limit(async () => {
        try {
          await runChunk(chunk);
        } finally {
          gates.done(chunk);
        }
      }),
    ),
  );
  if (permanent !== undefined) throw permanent;
  return results;
}
