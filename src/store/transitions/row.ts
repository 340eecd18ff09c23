/**
 * The shape of a row of the transition table. Every conditional write of the store is a row:
 * - a {@link Transition} moves a task from one of its `from` states to `to` (or keeps it
 *   there, as a heartbeat or a key's release does), with a history entry, the status index's
 *   keys and the lease/attempt fence; move.ts's `writeTransition` builds its write, which
 *   the writer sends;
 * - a {@link Write} is every other conditional write: a mark on a task that keeps its status
 *   (a cancel request, a duplicate's note, a counted parent), a task's creation or purge, and
 *   the writes on the items that live beside the tasks (a debounce pointer, a rate limit's
 *   bucket, a park item). The writer's `send` sends it, and `transact` sends several of them
 *   as one transaction.
 * Either way the row states the states it accepts and what else fences it, and declares the
 * attributes it may change (`writes`): the matrix test holds each row to that.
 */
import { type AuditEvent, TableSchema, type TaskStatus } from '../../core/constants.js';
import type { HistoryEntry, TaskRecord } from '../../core/record.js';
import type { LogAttributes } from '../../observability/logger.js';
import { expiresAtSeconds, type Retention } from '../../settings/retention.js';
import { PRODUCER_HISTORY } from '../history.js';
import type { TaskItem } from '../record.js';
import { type Condition, compare, equals } from './expression.js';

/** What the caller read of a record: lets a transition fold the history and file a finished task. */
export interface SeenHistory {
  readonly history?: TaskRecord['history'] | undefined;
  /** Whether the record read had dependents: the first guess of a finished write's filing. */
  readonly hasDependents?: boolean | undefined;
}

/** What a worker holds after a claim; every worker write is fenced by it. */
export interface Lease {
  readonly taskId: string;
  readonly taskType: string;
  readonly attempt: number;
  readonly leaseToken: string;
  readonly workerId: string;
  /**
   * The history as the claim wrote it. Heartbeats leave it unchanged, so the worker's
   * fenced writes can fold it within their one write (ADR 0008). Without it,
   * a fenced write appends.
   */
  readonly history?: readonly HistoryEntry[] | undefined;
  /** The task's dependents as the claim found them (docs/adr/0030-dependencies.md). */
  readonly dependents?: readonly string[] | undefined;
}

/** The part of a record a transition is fenced by, as the caller read it. */
export type Seen = Pick<TaskRecord, 'id' | 'type' | 'attempt' | 'generation'> & SeenHistory;

/** A row that moves a task between statuses (or keeps it, recording an event). `I` is what the caller passes. */
export interface Transition<I> {
  readonly kind: 'transition';
  readonly name: string;
  /** The states the task may be in. */
  readonly from: readonly TaskStatus[];
  /** What else must hold, besides the starting state. */
  readonly fence: (input: I, now: number) => readonly Condition[];
  readonly event: AuditEvent;
  readonly to: TaskStatus;
  /** The task, and the history the caller read (lets the write fold it). */
  readonly task: (input: I) => Pick<TaskRecord, 'id' | 'type'> & SeenHistory;
  /** The history entry's attempt and worker, and for an operator's action its principal. */
  readonly by: (input: I) => {
    readonly attempt: number;
    readonly workerId?: string | undefined;
    readonly principal?: string | undefined;
  };
  readonly detail?: (input: I) => string | undefined;
  readonly set?: (input: I, now: number, retention: Retention) => Record<string, unknown>;
  readonly remove?: readonly string[];
  /** Attributes removed or not depending on the input, besides `remove`. */
  readonly drop?: (input: I) => readonly string[];
  /**
   * Every attribute `set`, `remove` and `drop` may change. The writer also changes
   * {@link TRANSITION_WRITES} on every transition.
   */
  readonly writes: readonly string[];
  /** The status index's sort key in the new state. */
  readonly statusAt: (input: I, now: number) => number;
  /**
   * True when this write leaves the task out of the status index although its new status is
   * keyed: the sort key (`statusAt`, its due time, which the sweeper's repairs are fenced by)
   * is written and the partition key removed, so no index entry is written. Only a retry
   * whose message is sure to outlive its delay is written so
   * (docs/adr/0068-a-retry-stays-off-the-index.md).
   */
  readonly offIndex?: (input: I) => boolean;
  /** Fenced by the worker's lease: a refusal is a LeaseLostError. */
  readonly leased?: boolean;
  /** Counted on the record instead of added to the history. */
  readonly heartbeat?: boolean;
  /** Fields for the audit line only, not stored in the history. */
  readonly log?: (input: I) => LogAttributes | undefined;
  /**
   * Written by a producer's client, whose grant may not name `history`: the entry goes to
   * the producer's own list instead (store/history.ts, docs/adr/0039-operator-audit.md).
   */
  readonly producer?: boolean;
}

/** What every transition writes besides its own attributes: the status, history and index keys. */
export const TRANSITION_WRITES: readonly string[] = [
  'status',
  'updatedAt',
  'history',
  'historyTruncated',
  'heartbeats',
  'lastHeartbeatAt',
  TableSchema.STATUS_INDEX_PARTITION_KEY,
  TableSchema.STATUS_INDEX_SORT_KEY,
  // A terminal write whose item would pass DynamoDB's size limit leaves its result out.
  'result',
  // A producer's move appends its entry there instead of to `history`.
  PRODUCER_HISTORY,
];

/** The request a {@link Write} sends, besides its condition. */
export type WriteRequest =
  /** UpdateItem of `key` with `update`; `returns` what comes back when it lands. */
  | {
      readonly op: 'update';
      readonly key: string;
      readonly update: Condition;
      readonly returns?: 'ALL_NEW' | 'UPDATED_OLD' | undefined;
    }
  /** PutItem of `item`. */
  | { readonly op: 'put'; readonly item: TaskItem }
  /** DeleteItem of `key`. */
  | { readonly op: 'delete'; readonly key: string }
  /** A ConditionCheck of `key`: only within a transaction, where it fences the other items. */
  | { readonly op: 'check'; readonly key: string };

/** What a {@link Write}'s request may use besides its input. */
export interface RowSettings {
  readonly statusShards: number;
  readonly retention: Retention;
}

/** A row that is not a status move: one conditional Put, Update, Delete or ConditionCheck. */
export interface Write<I> {
  /**
   * `mark`: a task keeps its status; `create`, `purge`: a task's item is written or deleted;
   * `item`: an item beside the tasks (debounce pointer, rate bucket, park item).
   */
  readonly kind: 'mark' | 'create' | 'purge' | 'item';
  readonly name: string;
  /**
   * The task's statuses it accepts. Absent for a row on an item that is no task's: its
   * condition is its fence alone.
   */
  readonly from?: readonly TaskStatus[];
  /** Accepts an absent item too (a create). */
  readonly orAbsent?: boolean;
  /** The statuses the item it writes starts in (a create). */
  readonly creates?: readonly TaskStatus[];
  /** What else must hold, besides the starting state. */
  readonly fence: (input: I, now: number) => readonly Condition[];
  readonly request: (input: I, now: number, settings: RowSettings) => WriteRequest;
  /** Every attribute the write may change on the item it writes. */
  readonly writes: readonly string[];
  /**
   * Whether a refusal returns the item as DynamoDB held it (ALL_OLD). @default true. A few
   * rows whose callers need only the yes or no keep their request as small as it was.
   */
  readonly returnsOld?: boolean;
}

/** Any row of the table. */
export type Row = Transition<never> | Write<never>;

/** The lease's attributes, removed when a lease ends. */
export const LEASE = ['leaseToken', 'leaseExpiresAt'] as const;

/**
 * What a redrive clears (repairs.ts's, and parking.ts's of a parked task), in place or with a
 * new message: the death, the last worker, a cancel request the dead run never honoured, a
 * lost-lease mark and the re-send count. Here rather than in repairs.ts, whose rows a worker
 * does not load (docs/adr/0070-store-parts-on-first-use.md).
 */
export const REDRIVE_REMOVES = [
  'deadReason',
  'finishedAt',
  'workerId',
  'cancelRequestedAt',
  // A pause the dead run never honoured (docs/adr/0048-durable-sleep-signals-pause.md).
  'pauseRequestedAt',
  'leaseLost',
  'resends',
  // A durable task's continuations: a redrive gives it a fresh budget, as it does attempts.
  'continuations',
] as const;

/** The status index's sort key: the time of the write. */
export const at = (_input: unknown, now: number): number => now;
/** A finished task's time and its retention TTL. */
export const finished = (_input: unknown, now: number, retention: Retention) => ({
  finishedAt: now,
  [TableSchema.TTL_ATTRIBUTE]: expiresAtSeconds(now, retention),
});
/** What {@link finished} writes. */
export const FINISHED = ['finishedAt', TableSchema.TTL_ATTRIBUTE] as const;
/** A lease the caller saw on the record has run out. */
export const expiredLease = (seen: TaskRecord, now: number): Condition[] => [
  equals('leaseToken', 'seenToken', seen.leaseToken),
  equals('attempt', 'seenAttempt', seen.attempt),
  compare('leaseExpiresAt', '<=', 'now', now),
];

/** The task statuses a row accepts (none for a row on an item that is no task's). */
export function fromStates(row: Row): readonly TaskStatus[] {
  return row.from ?? [];
}
