/**
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
import { createHash } from 'node:crypto';
import { AuditEvent, TaskStatus } from '../core/constants.js';
import type { HistoryEntry } from '../core/record.js';

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
