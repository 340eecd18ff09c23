import pLimit from 'p-limit';
import { TaskStatus } from '../core/constants.js';
import type { ConfigurationError } from '../core/errors.js';
import type { TaskRecord } from '../core/record.js';
import { ChunkGates } from './chunk-gates.js';
import {
  absorbedInto,
  type BatchEntry,
  type EnqueueDeps,
  type EnqueueResult,
  writeRecord,
} from './enqueue.js';
import { nextSequence } from './prepare.js';

/** Per-entry outcome of {@link TaskClient.enqueueBatch}, in input order. */
export type BatchEntryResult =
  | ({ readonly ok: true } & EnqueueResult)
  | { readonly ok: false; readonly error: Error };

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
  deps: EnqueueDeps,
): Promise<BatchEntryResult[]> {
  const results: BatchEntryResult[] = new Array(entries.length);
  const sequences = entries.map(() => nextSequence());
  const chunkCount = Math.ceil(entries.length / CHUNK_SIZE);
  const gates = new ChunkGates(chunkCount);
  const blocked = new Set<string>();
  let permanent: ConfigurationError | undefined;

  const writeOne = async (index: number): Promise<Written | undefined> => {
    try {
      const written = await writeRecord(deps, entries[index] as BatchEntry, sequences[index]);
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
