/**
 * The rows of the transition table that a worker writes along a task's run: the claim, the
 * lease holder's heartbeat and its ends (complete, retry, kill, unclaim, a cancel it saw),
 * and the expiry of a lease that ran out on the final attempt. Each names the states it may
 * start from, what else fences it (the lease, or the attempt the caller read), its event and
 * target status, and what it sets and removes.
 */

import { AuditEvent, TableSchema, TaskStatus } from '../../core/constants.js';
import { boundedError, MAX_ERROR_MESSAGE_CHARS } from '../../core/errors.js';
import { unkeyedGroup } from '../../core/message.js';
import type { ObjectRef, TaskErrorInfo, TaskRecord } from '../../core/record.js';
import { truncate } from '../../core/record.js';
import type { LogAttributes } from '../../observability/logger.js';
import { expiresAtSeconds } from '../../settings/retention.js';
import {
  and,
  type Condition,
  compare,
  equals,
  exists,
  lessThanAttribute,
  notExists,
  oneOf,
  or,
} from './expression.js';
import {
  at,
  expiredLease,
  FINISHED,
  finished,
  LEASE,
  type Lease,
  type SeenHistory,
  type Transition,
} from './row.js';

/** What a death writes. */
const DEAD_WRITES = ['deadReason', 'lastError', 'finishedAt', ...LEASE] as const;

const dead = (reason: string, error: TaskErrorInfo | undefined, now: number) => ({
  deadReason: truncate(reason, MAX_ERROR_MESSAGE_CHARS),
  lastError: error === undefined ? undefined : boundedError(error),
  finishedAt: now,
});
/** The columns every write of a lease holder shares. */
export function byLease<I extends { readonly lease: Lease }>() {
  return {
    from: [TaskStatus.RUNNING],
    fence: ({ lease }: I) => [
      equals('leaseToken', 'leaseToken', lease.leaseToken),
      equals('attempt', 'fenceAttempt', lease.attempt),
    ],
    task: ({ lease }: I) => ({
      id: lease.taskId,
      type: lease.taskType,
      history: lease.history,
      dependents: lease.dependents,
    }),
    by: ({ lease }: I) => ({ attempt: lease.attempt, workerId: lease.workerId }),
    leased: true,
  } as const;
}

/**
 * What a claim names without reading the record: the task, the attempt it expects to find
 * (the claim starts the next one), and the message group of the message it came in. A
 * record read before satisfies it too; its history then lets the claim fold the history.
 */
export interface ClaimTarget extends SeenHistory {
  readonly id: string;
  readonly type: string;
  readonly attempt: number;
  /** Fenced when given: a message in another group than its task's is not the task's. */
  readonly messageGroupId?: string | undefined;
  /**
   * Fenced when given: a message of an earlier task of the id (purged, then enqueued again)
   * names that task's `createdAt`, not this one's (docs/adr/0063-messages-name-their-task-incarnation.md).
   */
  readonly createdAt?: number | undefined;
}

type ClaimInput = {
  target: ClaimTarget;
  workerId: string;
  leaseToken: string;
  leaseMs: number;
  /** Only a fresh task: not a RUNNING one whose lease expired, nor one requeued after that. */
  fresh: boolean;
  detail?: string | undefined;
  /** Added to the claim's audit line only, e.g. the message id. */
  log?: LogAttributes | undefined;
};
/**
 * The task's message group is `group`: the stored `messageGroupId`, or, when the item leaves
 * it out (docs/adr/0027-compact-history.md), its ordering key; without a key, its unkeyed
 * group, or its bare id, the group older producers sent unkeyed tasks in
 * (docs/adr/0032-parked-keys-lanes-and-groups.md). Whether `group` is the id's unkeyed
 * group is decided here, since a condition cannot prefix an attribute.
 */
const inGroup = (group: string, id: string): Condition =>
  or([
    equals('messageGroupId', 'messageGroupId', group),
    and([
      notExists('messageGroupId'),
      or([
        equals('orderingKey', 'messageGroupId', group),
        group === unkeyedGroup(id)
          ? notExists('orderingKey')
          : and([
              notExists('orderingKey'),
              equals(TableSchema.PARTITION_KEY, 'messageGroupId', group),
            ]),
      ]),
    ]),
  ]);
/** Waiting to start: a claim of these needs the task due (runAt, if any, reached). */
const WAITING = [TaskStatus.QUEUED, TaskStatus.PENDING, TaskStatus.SCHEDULED] as const;
const waitingKeys = Object.fromEntries(WAITING.map((status) => [status.toLowerCase(), status]));
/** The task is due: no runAt, or it has come. */
const due = (now: number): Condition =>
  or([notExists('runAt'), compare('runAt', '<=', 'now', now)]);
/**
 * A SUSPENDED task is due: its timer has ended, or a signal it waits for has arrived
 * (docs/adr/0048-durable-sleep-signals-pause.md).
 */
const woken = (now: number): Condition =>
  and([
    equals('status', 'suspended', TaskStatus.SUSPENDED),
    or([compare('wakeAt', '<=', 'now', now), exists('wokenAt', 'wokenAt')]),
  ]);
/** Waiting to start and due; suspended and woken: one of these holds of a ready task. */
const ready = (now: number): Condition[] => [
  and([oneOf('status', waitingKeys), due(now)]),
  woken(now),
];
/**
 * The claim, without a read before it (docs/adr/0020-claim-without-pre-read.md): one
 * conditional write over every claimable state. A waiting task must be due, a SUSPENDED one
 * woken (its timer ended, or its signal came); a RUNNING one
 * (only outside the fresh phase) must have an expired lease; the attempt must be the one
 * the target expects and below maxAttempts; the type, message group and creation time
 * (ADR 0063) must be the message's. A fresh claim also requires `leaseLost` absent: a task
 * requeued after a lost lease is a takeover (ADR 0007), which runs alone. Refused, DynamoDB's
 * ALL_OLD record feeds the same claim decision a read used to.
 */
export const claim: Transition<ClaimInput> = {
  kind: 'transition',
  name: 'claim',
  from: [...WAITING, TaskStatus.SUSPENDED, TaskStatus.RUNNING],
  fence: ({ target, fresh }, now) => [
    equals('attempt', 'seenAttempt', target.attempt),
    lessThanAttribute('attempt', 'maxAttempts'),
    equals('type', 'type', target.type),
    ...(target.messageGroupId === undefined ? [] : [inGroup(target.messageGroupId, target.id)]),
    ...(target.createdAt === undefined ? [] : [equals('createdAt', 'createdAt', target.createdAt)]),
    // A fresh claim takes only a waiting task: never a RUNNING one.
    fresh
      ? and([or(ready(now)), notExists('leaseLost')])
      : or([
          ...ready(now),
          and([
            equals('status', 'running', TaskStatus.RUNNING),
            compare('leaseExpiresAt', '<=', 'now', now),
          ]),
        ]),
  ],
  event: AuditEvent.CLAIMED,
  to: TaskStatus.RUNNING,
  task: ({ target }) => target,
  by: ({ target, workerId }) => ({ attempt: target.attempt + 1, workerId }),
  detail: ({ detail }) => detail,
  // The worker is kept once, in the claim's history entry (docs/adr/0027-compact-history.md);
  // a `workerId` attribute written by an older version goes.
  set: ({ target, leaseToken, leaseMs }, now) => ({
    attempt: target.attempt + 1,
    leaseToken,
    leaseExpiresAt: now + leaseMs,
  }),
  // A woken task's held message is this one, or stale; its wake is spent.
  remove: ['leaseLost', 'resends', 'workerId', 'held', 'wokenAt'],
  log: ({ log }) => log,
  writes: [
    'attempt',
    'leaseToken',
    'leaseExpiresAt',
    'leaseLost',
    'resends',
    'workerId',
    'held',
    'wokenAt',
  ],
  statusAt: ({ leaseMs }, now) => now + leaseMs,
};

/** A heartbeat; `progressJson`, the handler's latest progress, rides on it (ADR 0022). */
type BeatInput = { lease: Lease; leaseMs: number; progressJson?: string | undefined };
export const extendLease: Transition<BeatInput> = {
  kind: 'transition',
  ...byLease<BeatInput>(),
  name: 'extend the lease of',
  event: AuditEvent.HEARTBEAT_EXTENDED,
  to: TaskStatus.RUNNING,
  heartbeat: true,
  set: ({ leaseMs, progressJson }, now) => ({
    leaseExpiresAt: now + leaseMs,
    progress: progressJson,
    progressAt: progressJson === undefined ? undefined : now,
  }),
  writes: ['leaseExpiresAt', 'progress', 'progressAt'],
  statusAt: ({ leaseMs }, now) => now + leaseMs,
};

type CompleteInput = {
  lease: Lease;
  resultJson: string | undefined;
  resultRef?: ObjectRef;
  /** Why the result is not where it would be (a payload bucket that stayed down). */
  note?: string | undefined;
};
export const complete: Transition<CompleteInput> = {
  kind: 'transition',
  ...byLease<CompleteInput>(),
  name: 'complete',
  event: AuditEvent.SUCCEEDED,
  to: TaskStatus.SUCCEEDED,
  detail: ({ note }) => note,
  // No `finishedAt`: a success's finish time is its `updatedAt`, which nothing changes
  // afterwards, so the record reads it from there (docs/adr/0027-compact-history.md).
  set: ({ resultJson, resultRef }, now, retention) => ({
    result: resultJson,
    resultRef,
    [TableSchema.TTL_ATTRIBUTE]: expiresAtSeconds(now, retention),
  }),
  remove: LEASE,
  writes: ['result', 'resultRef', TableSchema.TTL_ATTRIBUTE, ...LEASE],
  statusAt: at,
};

type RetryInput = {
  lease: Lease;
  error: TaskErrorInfo;
  delayMs: number;
  /**
   * The worker holds the task's message, and it outlives the delay by a margin: the task is
   * left out of the status index (docs/adr/0068-a-retry-stays-off-the-index.md).
   */
  offIndex?: boolean | undefined;
};
/**
 * RUNNING → QUEUED after a failed attempt with attempts left. Its message, in the worker's
 * hand, comes back when the delay ends. Written off the status index when the worker knows
 * the message outlives the delay (`offIndex`): that saves the index's put here and its delete
 * at the next claim (docs/adr/0068-a-retry-stays-off-the-index.md).
 */
export const retry: Transition<RetryInput> = {
  kind: 'transition',
  ...byLease<RetryInput>(),
  name: 'retry',
  event: AuditEvent.RETRY_SCHEDULED,
  to: TaskStatus.QUEUED,
  detail: ({ error, delayMs }) => `${error.name}: ${error.message} (next attempt in ${delayMs} ms)`,
  set: ({ error }) => ({ lastError: boundedError(error) }),
  remove: LEASE,
  writes: ['lastError', ...LEASE],
  statusAt: ({ delayMs }, now) => now + delayMs,
  offIndex: ({ offIndex }) => offIndex === true,
};

type KillInput = { lease: Lease; reason: string; error?: TaskErrorInfo | undefined };
export const kill: Transition<KillInput> = {
  kind: 'transition',
  ...byLease<KillInput>(),
  name: 'kill',
  event: AuditEvent.DEAD,
  to: TaskStatus.DEAD,
  detail: ({ reason }) => reason,
  set: ({ reason, error }, now) => dead(reason, error, now),
  remove: LEASE,
  writes: DEAD_WRITES,
  statusAt: at,
};

type UnclaimInput = {
  lease: Lease;
  reason: string;
  takeover: boolean;
  delayMs: number;
  /** The handler had run (a durable task's step or checkpoint met the outage). */
  ran?: boolean | undefined;
};
/**
 * RUNNING → QUEUED by the lease holder before the handler started, because a dependency
 * the start needs (the payload's S3 object, the integrity tag's KMS check) failed: the claim
 * is given back and the attempt it started is not spent (docs/adr/0034-dependency-outages.md).
 * The attempt returns to the one before the claim, so the next claim starts the same attempt
 * again; a takeover's claim keeps its lost-lease mark, so its next claim is a takeover again.
 * When the handler had run (a durable task's step or checkpoint met an S3 outage), the record
 * says so (`ranUnspent`), so that the next slice looks for the steps it stored. Either way it
 * is marked `unclaimed`: its attempt is back at the one before the claim, and the mark is
 * what tells the debounce fold that the task was taken all the same, so a later enqueue of
 * its debounce key makes a new task instead of changing this one
 * (docs/adr/0064-a-given-back-claim-ends-the-debounce-window.md).
 * Its message, never acknowledged, keeps the task's place at the head of its group.
 */
export const unclaim: Transition<UnclaimInput> = {
  kind: 'transition',
  ...byLease<UnclaimInput>(),
  name: 'unclaim',
  event: AuditEvent.UNCLAIMED,
  to: TaskStatus.QUEUED,
  detail: ({ lease, reason, ran }) =>
    `${reason}; attempt ${lease.attempt} not spent${ran === true ? '' : ', not run'}`,
  set: ({ lease, takeover, ran }) => ({
    attempt: lease.attempt - 1,
    unclaimed: true,
    ...(takeover ? { leaseLost: true } : {}),
    // The next slice, at the same attempt, may find steps this one stored.
    ...(ran === true ? { ranUnspent: true } : {}),
  }),
  remove: LEASE,
  // Due when its message is next delivered; an overdue resend counts from then.
  writes: ['attempt', 'unclaimed', 'leaseLost', 'ranUnspent', ...LEASE],
  statusAt: ({ delayMs }, now) => now + delayMs,
};

type ExpireInput = { seen: TaskRecord; reason: string; actor: string };
export const expire: Transition<ExpireInput> = {
  kind: 'transition',
  name: 'expire',
  from: [TaskStatus.RUNNING],
  fence: ({ seen }, now) => expiredLease(seen, now),
  event: AuditEvent.DEAD,
  to: TaskStatus.DEAD,
  task: ({ seen }) => seen,
  by: ({ seen, actor }) => ({ attempt: seen.attempt, workerId: actor }),
  detail: ({ reason }) => reason,
  set: ({ reason }, now) => dead(reason, undefined, now),
  remove: LEASE,
  writes: DEAD_WRITES,
  statusAt: at,
  // Fenced by the lease the caller saw, like the holder's own writes.
  leased: true,
};

type CancelRunningInput = { lease: Lease; detail: string };
/** RUNNING → CANCELLED by the lease holder, which saw the cancel request (ADR 0022). */
export const cancelRunning: Transition<CancelRunningInput> = {
  kind: 'transition',
  ...byLease<CancelRunningInput>(),
  fence: (input) => [
    ...byLease<CancelRunningInput>().fence(input),
    exists('cancelRequestedAt', 'cancelRequestedAt'),
  ],
  name: 'end as cancelled',
  event: AuditEvent.CANCELLED,
  to: TaskStatus.CANCELLED,
  detail: ({ detail }) => detail,
  set: finished,
  remove: LEASE,
  writes: [...FINISHED, ...LEASE],
  statusAt: at,
};
