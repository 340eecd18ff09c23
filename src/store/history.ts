/**
 * The history's byte budget, as pure functions (ADR 0008). A transition either
 * appends its entry (`list_append`) or, when the history would pass its budget, rewrites it
 * folded: the first entry and the newest ones are kept, and the entries in between are only
 * counted (`historyTruncated`). Heartbeats never add entries.
 */
import { Defaults } from '../core/constants.js';
import type { HistoryEntry } from '../core/record.js';

/**
 * Bounds each history entry's detail, so that one entry stays well under a kilobyte and the
 * budget holds dozens of entries.
 */
export const MAX_DETAIL_CHARS = 240;

/**
 * An upper estimate of an entry's stored size: its JSON text in UTF-8. DynamoDB stores names
 * and values without JSON's quotes, braces and commas, so the real size is smaller.
 */
export function entryBytes(entry: HistoryEntry): number {
  return Buffer.byteLength(JSON.stringify(entry), 'utf8');
}

/** {@link entryBytes} summed over a history. */
export function historyBytes(history: readonly HistoryEntry[]): number {
  let total = 0;
  for (const entry of history) total += entryBytes(entry);
  return total;
}

/** An upper estimate of a whole item's stored size (see {@link entryBytes}). */
export function itemBytes(item: Record<string, unknown>): number {
  return Buffer.byteLength(JSON.stringify(item), 'utf8');
}

/** How a transition writes the history. */
export type HistoryPlan =
  /** `list_append` the new entry (if any) to the stored list. */
  | { readonly kind: 'append' }
  /**
   * Replace the stored list, which must still have `seenLength` entries, with `entries`;
   * `dropped` entries of it are folded into the `historyTruncated` count.
   */
  | {
      readonly kind: 'rewrite';
      readonly entries: readonly HistoryEntry[];
      readonly dropped: number;
      readonly seenLength: number;
    };

/** Options of {@link planHistory}. */
export interface PlanOptions {
  /** @default Defaults.HISTORY_BUDGET_BYTES */
  readonly budgetBytes?: number;
  /**
   * Rewrite even within the budget: the caller has just seen the item refused for its size
   * and must write a known, bounded list instead of appending to an unknown one.
   */
  readonly force?: boolean;
}

/**
 * Decides how a transition writes the history, given the history the caller read (`seen`,
 * or undefined when it holds none) and the entry to add (undefined for a heartbeat).
 *
 * Within the budget (or with no `seen` history to fold) the entry is appended. Past it, the
 * history is folded down to {@link Defaults.HISTORY_FOLD_TARGET} of the budget, so the next
 * transitions append again instead of each rewriting the list. The folded list keeps the
 * first entry (how the task came to exist) and the newest entries that fit; the new entry
 * is always kept.
 */
export function planHistory(
  seen: readonly HistoryEntry[] | undefined,
  entry: HistoryEntry | undefined,
  options: PlanOptions = {},
): HistoryPlan {
  if (seen === undefined) return { kind: 'append' };
  const budget = options.budgetBytes ?? Defaults.HISTORY_BUDGET_BYTES;
  const full = entry === undefined ? [...seen] : [...seen, entry];
  if (historyBytes(full) <= budget) {
    return options.force === true
      ? { kind: 'rewrite', entries: full, dropped: 0, seenLength: seen.length }
      : { kind: 'append' };
  }
  const entries = foldHistory(full, Math.floor(budget * Defaults.HISTORY_FOLD_TARGET));
  return {
    kind: 'rewrite',
    entries,
    dropped: full.length - entries.length,
    seenLength: seen.length,
  };
}

/**
 * Keeps the first entry and, from the newest back, as many entries as fit in `targetBytes`
 * together with it. The newest entry is kept even when it alone does not fit.
 */
export function foldHistory(
  history: readonly HistoryEntry[],
  targetBytes: number,
): readonly HistoryEntry[] {
  if (history.length <= 2) return history;
  const first = history[0] as HistoryEntry;
  let used = entryBytes(first);
  let start = history.length;
  while (start > 1) {
    const bytes = entryBytes(history[start - 1] as HistoryEntry);
    if (start < history.length && used + bytes > targetBytes) break;
    used += bytes;
    start -= 1;
  }
  return [first, ...history.slice(start)];
}
