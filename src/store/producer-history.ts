/**
 * The producer's own history entries, kept apart from the history the worker, the sweeper and
 * operators write (docs/adr/0039-operator-audit.md). A producer's grant may not name
 * `history` (`dynamodb:Attributes`), so what a producer's client writes on an existing
 * record, its cancel, its cancel request and a delayed enqueue's rollback, appends its entry
 * to `producerHistory` instead. Readers see one history: the record's `history` merges both
 * by time. Writers fold and rewrite only the stored `history` ({@link storedEntries}), so the
 * two lists never mix in the item.
 *
 * IAM cannot make a producer's write an append, so a producer can rewrite this list as it
 * likes; only the events a producer writes are read from it (a forged claim or success there
 * is ignored), and it holds at most {@link MAX_PRODUCER_ENTRIES} entries.
 */
import { AuditEvent } from '../core/constants.js';
import type { HistoryEntry } from '../core/record.js';
import { fromStoredEntry } from './stored-history.js';

/** The attribute of the producer's entries. */
export const PRODUCER_HISTORY = 'producerHistory';

/**
 * Entries a producer's client appends at most, over a record's life: its cancel or
 * rollback (which end the record), and one cancel request per run, a run being ended by a
 * redrive. Past the limit, a cancel request is still written, without its entry (it is
 * logged as always).
 */
export const MAX_PRODUCER_ENTRIES = 8;

/** The only events read from {@link PRODUCER_HISTORY}. */
const PRODUCER_EVENTS: ReadonlySet<string> = new Set([
  AuditEvent.CANCELLED,
  AuditEvent.ROLLED_BACK,
  AuditEvent.CANCEL_REQUESTED,
]);

/** Entries of a merged history that came from {@link PRODUCER_HISTORY}. */
const fromProducer = new WeakSet<HistoryEntry>();

/**
 * The record's history as readers see it: the stored `history` and the producer's entries,
 * ordered by time (an entry of the stored history first at equal times).
 */
export function mergeProducerHistory(
  history: readonly HistoryEntry[],
  stored: unknown,
  createdAt: number,
): HistoryEntry[] {
  if (!Array.isArray(stored) || stored.length === 0) return [...history];
  const producer = stored
    .map((raw) => fromStoredEntry(raw, createdAt))
    .filter((entry) => PRODUCER_EVENTS.has(entry.event) && Number.isFinite(entry.at));
  for (const entry of producer) fromProducer.add(entry);
  const merged = [...history];
  for (const entry of producer) {
    let at = merged.length;
    while (at > 0 && (merged[at - 1] as HistoryEntry).at > entry.at) at -= 1;
    merged.splice(at, 0, entry);
  }
  return merged;
}

/** The entries of a (merged) history that the item's `history` attribute holds. */
export function storedEntries(
  history: readonly HistoryEntry[] | undefined,
): readonly HistoryEntry[] | undefined {
  return history?.filter((entry) => !fromProducer.has(entry));
}

/** How many of a (merged) history's entries are the producer's. */
export function producerEntryCount(history: readonly HistoryEntry[]): number {
  return history.filter((entry) => fromProducer.has(entry)).length;
}
