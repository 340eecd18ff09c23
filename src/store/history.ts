/**
 * A task's history as the item stores it: one concept in three parts, each read and written
 * only through this module.
 * - The stored form: compact entries, because every byte of the item is paid for on each
 *   write (docs/adr/0027-compact-history.md).
 * - The byte budget: an entry is appended while the history fits, else the history is
 *   rewritten folded (docs/adr/0008-bounded-history.md).
 * - The producer's own list, kept apart from the history the worker, the sweeper and
 *   operators write, and merged with it for readers (docs/adr/0039-operator-audit.md).
 */
import { createHash } from 'node:crypto';
import { AuditEvent, Defaults, TaskStatus } from '../core/constants.js';
import { type HistoryEntry, truncate } from '../core/record.js';

/*
 * How a history entry is stored: compact, because every byte of the item is paid for on each
 * write, one write unit per started kilobyte (docs/adr/0027-compact-history.md). The public
 * {@link HistoryEntry} is mapped to and from this form; nothing else sees it.
 *
 * - One-letter attribute names: `e` event, `t` time, `a` attempt, `s` status, `w` worker,
 *   `d` detail, `p` the operator principal.
 * - The event as a short code ({@link EVENT_CODES}); an event without one is stored by name.
 * - The status left out when it is the one the event implies (a claim leaves the task
 *   RUNNING), the attempt when it is 0, and the time of the entry the record is created
 *   with (its `createdAt`).
 * - The worker as its short id ({@link shortWorkerId}); the log line of the same event
 *   carries the full id beside it. A retry or a success, which only the lease holder writes,
 *   leaves it out: it is its attempt's claim's.
 *
 * Entries written before this form (full attribute names) are read as they are.
 */

/** A history entry as stored in the item. */
export interface StoredEntry {
  readonly e: string;
  /** Left out by the first entry, written with the record: its time is `createdAt`. */
  readonly t?: number;
  readonly a?: number;
  readonly s?: string;
  readonly w?: string;
  readonly d?: string;
  readonly p?: string;
}

/** Worker ids up to this many characters are stored as they are. */
export const MAX_VERBATIM_WORKER_ID = 16;

/**
 * The worker id as the item stores it: an id of at most {@link MAX_VERBATIM_WORKER_ID}
 * characters as it is; a longer one (a Lambda worker's is its function name and log stream,
 * 60 characters and more) as `~` and 9 characters of the base64url SHA-256 of the id (54
 * bits: distinct among the workers of one task's life by a wide margin). Stable, so the
 * audit log's `workerRef` field, written beside the full `workerId`, maps one to the other.
 * A short id maps to itself, so storing an entry read back changes nothing.
 */
export function shortWorkerId(workerId: string): string {
  if (workerId.length <= MAX_VERBATIM_WORKER_ID) return workerId;
  const digest = createHash('sha256').update(workerId).digest('base64url');
  return `~${digest.slice(0, 9)}`;
}

/** The stored code of each event that has one: the frequent ones, and every transition. */
export const EVENT_CODES: Readonly<Partial<Record<AuditEvent, string>>> = {
  [AuditEvent.SUBMITTED]: 'n',
  [AuditEvent.SCHEDULED]: 'sc',
  [AuditEvent.CLAIMED]: 'c',
  [AuditEvent.RETRY_SCHEDULED]: 'r',
  [AuditEvent.SUCCEEDED]: 'ok',
  [AuditEvent.DEAD]: 'x',
  [AuditEvent.CANCELLED]: 'cx',
  [AuditEvent.REQUEUED]: 'rq',
  [AuditEvent.RESENT]: 'rs',
  [AuditEvent.REDRIVEN]: 'rd',
  [AuditEvent.DUPLICATE_DROPPED]: 'dup',
  [AuditEvent.ROLLED_BACK]: 'rb',
  [AuditEvent.CANCEL_REQUESTED]: 'cr',
  [AuditEvent.KEY_RELEASED]: 'kr',
  [AuditEvent.UNCLAIMED]: 'uc',
};

const EVENTS_BY_CODE: ReadonlyMap<string, AuditEvent> = new Map(
  Object.entries(EVENT_CODES).map(([event, code]) => [code as string, event as AuditEvent]),
);

/** The status an event leaves the task in, when it always leaves the same one. */
const IMPLIED_STATUS: Readonly<Partial<Record<AuditEvent, TaskStatus>>> = {
  [AuditEvent.SUBMITTED]: TaskStatus.PENDING,
  [AuditEvent.SCHEDULED]: TaskStatus.SCHEDULED,
  [AuditEvent.CLAIMED]: TaskStatus.RUNNING,
  [AuditEvent.RETRY_SCHEDULED]: TaskStatus.QUEUED,
  [AuditEvent.SUCCEEDED]: TaskStatus.SUCCEEDED,
  [AuditEvent.DEAD]: TaskStatus.DEAD,
  [AuditEvent.CANCELLED]: TaskStatus.CANCELLED,
  [AuditEvent.REQUEUED]: TaskStatus.PENDING,
  [AuditEvent.RESENT]: TaskStatus.PENDING,
  [AuditEvent.ROLLED_BACK]: TaskStatus.ROLLED_BACK,
  [AuditEvent.CANCEL_REQUESTED]: TaskStatus.RUNNING,
  [AuditEvent.KEY_RELEASED]: TaskStatus.DEAD,
  [AuditEvent.UNCLAIMED]: TaskStatus.QUEUED,
};

/**
 * Events only the lease holder writes, always as the worker of its claim: their entry leaves
 * the worker out, and the record reads it from that claim's entry ({@link inheritWorkers}).
 */
const HOLDER_EVENTS: ReadonlySet<string> = new Set([
  AuditEvent.RETRY_SCHEDULED,
  AuditEvent.SUCCEEDED,
  AuditEvent.UNCLAIMED,
]);

/** The stored form of an entry. */
export function toStoredEntry(entry: HistoryEntry): StoredEntry {
  const w = entry.workerId === undefined ? undefined : shortWorkerId(entry.workerId);
  const sameWorker = HOLDER_EVENTS.has(entry.event);
  return {
    e: EVENT_CODES[entry.event] ?? entry.event,
    t: entry.at,
    ...(entry.attempt === 0 ? {} : { a: entry.attempt }),
    ...(IMPLIED_STATUS[entry.event] === entry.status ? {} : { s: entry.status }),
    ...(w === undefined || sameWorker ? {} : { w }),
    ...(entry.detail === undefined ? {} : { d: entry.detail }),
    ...(entry.principal === undefined ? {} : { p: entry.principal }),
  };
}

/**
 * The stored form of a whole history (a fold's rewrite): as {@link toStoredEntry}, except that
 * a lease holder's entry keeps its worker when the list holds no claim to read it from.
 */
export function toStoredHistory(entries: readonly HistoryEntry[]): StoredEntry[] {
  return entries.map((entry, n) => {
    const stored = toStoredEntry(entry);
    if (entry.workerId === undefined || !HOLDER_EVENTS.has(entry.event)) return stored;
    const w = shortWorkerId(entry.workerId);
    const { workerId: _worker, ...bare } = entry;
    const inherited = inheritWorkers([...entries.slice(0, n), bare])[n]?.workerId;
    return inherited !== undefined && shortWorkerId(inherited) === w ? stored : { ...stored, w };
  });
}

/**
 * The public form of a stored entry, compact or written before the compact form. An entry
 * without a time (the first, written with the record) took place at `createdAt`.
 */
export function fromStoredEntry(stored: unknown, createdAt = Number.NaN): HistoryEntry {
  const raw = (stored ?? {}) as Record<string, unknown>;
  if (typeof raw.e !== 'string') return raw as unknown as HistoryEntry;
  const event = EVENTS_BY_CODE.get(raw.e) ?? (raw.e as AuditEvent);
  return {
    event,
    at: raw.t === undefined ? createdAt : Number(raw.t),
    attempt: Number(raw.a ?? 0),
    status: (typeof raw.s === 'string' ? raw.s : IMPLIED_STATUS[event]) as TaskStatus,
    ...(typeof raw.w === 'string' ? { workerId: raw.w } : {}),
    ...(typeof raw.d === 'string' ? { detail: raw.d } : {}),
    ...(typeof raw.p === 'string' ? { principal: raw.p } : {}),
  };
}

/**
 * Fills in the worker of a lease holder's entry, stored without one: the worker of the
 * nearest claim entry before it with the same attempt, looking no further back than a
 * redrive (whose attempts start again from 1). Unknown (undefined) if the fold dropped it.
 */
export function inheritWorkers(history: readonly HistoryEntry[]): HistoryEntry[] {
  return history.map((entry, n) => {
    if (entry.workerId !== undefined || !HOLDER_EVENTS.has(entry.event)) return entry;
    for (let k = n - 1; k >= 0; k--) {
      const before = history[k] as HistoryEntry;
      if (before.event === AuditEvent.REDRIVEN) break;
      if (before.event === AuditEvent.CLAIMED && before.attempt === entry.attempt) {
        return before.workerId === undefined ? entry : { ...entry, workerId: before.workerId };
      }
    }
    return entry;
  });
}

/**
 * The worker of the task's latest claim, or undefined when it has none since its latest
 * redrive (which ends what the dead run held): what the record shows as its worker, kept in
 * the claim's entry rather than a second time beside it.
 */
export function latestClaimWorker(history: readonly HistoryEntry[]): string | undefined {
  for (let n = history.length - 1; n >= 0; n--) {
    const entry = history[n] as HistoryEntry;
    if (entry.event === AuditEvent.REDRIVEN) return undefined;
    if (entry.event === AuditEvent.CLAIMED) return entry.workerId;
  }
  return undefined;
}

/*
 * The history's byte budget, as pure functions (ADR 0008). A transition either
 * appends its entry (`list_append`) or, when the history would pass its budget, rewrites it
 * folded: the first entry and the newest ones are kept, and the entries in between are only
 * counted (`historyTruncated`). Heartbeats never add entries.
 */

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

/*
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

/**
 * The history entry of an operator's request to a RUNNING task that its lease holder carries
 * out (a cancel or a pause request): at `at`, for the attempt running, with the reason,
 * truncated, and who asked.
 */
export function runningRequestEntry(
  event: typeof AuditEvent.CANCEL_REQUESTED | typeof AuditEvent.PAUSE_REQUESTED,
  at: number,
  attempt: number,
  reason: string | undefined,
  principal: string | undefined,
): HistoryEntry {
  return {
    event,
    at,
    attempt,
    status: TaskStatus.RUNNING,
    ...(reason === undefined ? {} : { detail: truncate(reason, MAX_DETAIL_CHARS) }),
    ...(principal === undefined ? {} : { principal }),
  };
}
