/**
 * The rows of the transition table written by others than a lease
 * holder: the producer's cancel and rollback, the sweeper's requeue and overdue resend, and
 * the operator's redrive. Each is fenced by what the caller read: the attempt, the
 * generation, an expired lease, or the creation time.
 */
import { AuditEvent, TableSchema, TaskStatus } from '../../core/constants.js';
import type { TaskRecord } from '../../core/record.js';
import { expiresAtSeconds } from '../../settings/retention.js';
import { releaseDone } from '../status-index-keys.js';
import { compare, equals, generationIs, notExists } from './expression.js';
import {
  at,
  expiredLease,
  FINISHED,
  finished,
  LEASE,
  REDRIVE_REMOVES,
  type Seen,
  type SeenHistory,
  type Transition,
} from './row.js';

type CancelInput = {
  seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'> & SeenHistory;
  reason?: string | undefined;
  /** Who asked (docs/adr/0039-operator-audit.md). */
  principal?: string | undefined;
};
export const cancel: Transition<CancelInput> = {
  kind: 'transition',
  name: 'cancel',
  // A SUSPENDED or PAUSED task holds no worker: it is cancelled at once, as a waiting one.
  from: [
    TaskStatus.WAITING,
    TaskStatus.SCHEDULED,
    TaskStatus.PENDING,
    TaskStatus.QUEUED,
    TaskStatus.SUSPENDED,
    TaskStatus.PAUSED,
  ],
  fence: ({ seen }) => [equals('attempt', 'seenAttempt', seen.attempt)],
  event: AuditEvent.CANCELLED,
  to: TaskStatus.CANCELLED,
  task: ({ seen }) => seen,
  by: ({ seen, principal }) => ({ attempt: seen.attempt, principal }),
  detail: ({ reason }) => reason,
  set: finished,
  writes: FINISHED,
  statusAt: at,
  producer: true,
};

type RequeueInput = { seen: TaskRecord; reason: string; actor?: string | undefined };
export const requeue: Transition<RequeueInput> = {
  kind: 'transition',
  name: 'requeue',
  from: [TaskStatus.RUNNING],
  fence: ({ seen }, now) => expiredLease(seen, now),
  event: AuditEvent.REQUEUED,
  to: TaskStatus.PENDING,
  task: ({ seen }) => seen,
  by: ({ seen, actor }) => ({ attempt: seen.attempt, workerId: actor }),
  detail: ({ reason }) => reason,
  // The next claim takes over a lost lease; a fresh claim refuses it (ADR 0007).
  set: ({ seen }) => ({ generation: seen.generation + 1, leaseLost: true }),
  remove: LEASE,
  writes: ['generation', 'leaseLost', ...LEASE],
  statusAt: at,
};

type ResendInput = { seen: TaskRecord; overdueBefore: number; actor?: string | undefined };
export const resend: Transition<ResendInput> = {
  kind: 'transition',
  name: 'resend',
  from: [TaskStatus.QUEUED],
  fence: ({ seen, overdueBefore }) => [
    generationIs('seenGeneration', seen.generation),
    equals('attempt', 'seenAttempt', seen.attempt),
    compare('statusAt', '<', 'overdueBefore', overdueBefore),
  ],
  event: AuditEvent.RESENT,
  to: TaskStatus.PENDING,
  task: ({ seen }) => seen,
  by: ({ seen, actor }) => ({ attempt: seen.attempt, workerId: actor }),
  detail: ({ seen }) =>
    `queued since ${new Date(seen.updatedAt).toISOString()} and never claimed; sent again as generation ${seen.generation + 1}`,
  set: ({ seen }) => ({ generation: seen.generation + 1 }),
  writes: ['generation'],
  statusAt: at,
};

type RedriveInput = { seen: Seen; reason?: string | undefined; principal?: string | undefined };
export const redrive: Transition<RedriveInput> = {
  kind: 'transition',
  name: 'redrive',
  from: [TaskStatus.DEAD],
  fence: ({ seen }) => [
    equals('attempt', 'seenAttempt', seen.attempt),
    generationIs('seenGeneration', seen.generation),
    // Not while its release cancels dependents for this death (docs/adr/0031-dependency-fences.md).
    releaseDone(),
  ],
  event: AuditEvent.REDRIVEN,
  to: TaskStatus.PENDING,
  task: ({ seen }) => seen,
  by: ({ principal }) => ({ attempt: 0, principal }),
  detail: ({ reason }) => reason,
  set: ({ seen }) => ({ attempt: 0, generation: seen.generation + 1 }),
  remove: REDRIVE_REMOVES,
  writes: ['attempt', 'generation', ...REDRIVE_REMOVES],
  statusAt: at,
};

type RollbackInput = {
  seen: Pick<TaskRecord, 'id' | 'type' | 'generation' | 'createdAt'> & SeenHistory;
  reason: string;
};
/**
 * SCHEDULED → ROLLED_BACK, for the enqueue that wrote the record and could not create its
 * schedule: only the record it still owns, the one it wrote (same creation time), untouched
 * (never attempted, same generation) and not confirmed by another enqueue. Kept with the
 * retention TTL, like a finished task (docs/adr/0015-rollback-moves-instead-of-deleting.md).
 */
export const rollback: Transition<RollbackInput> = {
  kind: 'transition',
  name: 'roll back',
  from: [TaskStatus.SCHEDULED],
  fence: ({ seen }) => [
    equals('createdAt', 'createdAt', seen.createdAt),
    equals('attempt', 'zero', 0),
    generationIs('generation', seen.generation),
    notExists('scheduleConfirmed'),
  ],
  event: AuditEvent.ROLLED_BACK,
  to: TaskStatus.ROLLED_BACK,
  task: ({ seen }) => seen,
  by: () => ({ attempt: 0 }),
  detail: ({ reason }) => reason,
  set: (_input, now, retention) => ({
    [TableSchema.TTL_ATTRIBUTE]: expiresAtSeconds(now, retention),
  }),
  writes: [TableSchema.TTL_ATTRIBUTE],
  statusAt: at,
  producer: true,
};
