/**
 * The rows of the transition table that durable tasks add (docs/adr/0047-durable-tasks.md):
 * the lease holder's checkpoint and continuation, which are moves of the task's own item
 * fenced by its lease, and the step items, which live beside the task: each written once,
 * conditioned on its own absence, and deleted only by a purge or a restarting redrive.
 */
import { AuditEvent, TableSchema, TaskStatus } from '../../core/constants.js';
import type { ObjectRef } from '../../core/record.js';
import type { TaskItem } from '../record.js';
import { equals, notExists, or } from './expression.js';
import { redriveParked } from './parking.js';
import { redrive } from './repairs.js';
import { LEASE, type Lease, type Transition, type Write } from './row.js';

/** The columns every write of a lease holder shares (as lifecycle.ts's). */
function byLease<I extends { readonly lease: Lease }>() {
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
 * A checkpoint as the record keeps it in its one `checkpoint` attribute: the JSON text when
 * inline, or the payload bucket's reference, so that a save replaces either with either in
 * one SET.
 */
export type StoredCheckpoint =
  | { readonly json: string; readonly ref?: undefined }
  | { readonly ref: ObjectRef; readonly json?: undefined };

type CheckpointInput = {
  lease: Lease;
  /** The lease's expiry as last written: the status index keeps sorting the task by it. */
  leaseExpiresAt: number;
  checkpoint: StoredCheckpoint;
  /** The handler's latest progress, which rides on this write as on a heartbeat. */
  progressJson?: string | undefined;
};

/**
 * RUNNING → RUNNING: the lease holder stores its checkpoint, with its pending progress, in
 * one write fenced by its lease; the record it returns tells the holder of a cancel request,
 * as a heartbeat's does. The lease itself is left as it is (a heartbeat extends it), so the
 * message's visibility needs no change. A stale holder's save is refused (LeaseLostError), so
 * no slice but the live one can set the checkpoint.
 */
export const saveCheckpoint: Transition<CheckpointInput> = {
  kind: 'transition',
  ...byLease<CheckpointInput>(),
  name: 'save the checkpoint of',
  event: AuditEvent.CHECKPOINTED,
  to: TaskStatus.RUNNING,
  detail: ({ checkpoint }) =>
    checkpoint.ref === undefined
      ? `checkpoint saved (${Buffer.byteLength(checkpoint.json, 'utf8')} bytes)`
      : `checkpoint saved to the payload bucket (${checkpoint.ref.size} bytes)`,
  set: ({ checkpoint, progressJson }, now) => ({
    checkpoint: checkpoint.ref ?? checkpoint.json,
    checkpointAt: now,
    progress: progressJson,
    progressAt: progressJson === undefined ? undefined : now,
  }),
  writes: ['checkpoint', 'checkpointAt', 'progress', 'progressAt'],
  statusAt: ({ leaseExpiresAt }) => leaseExpiresAt,
};

type ContinueInput = {
  lease: Lease;
  /** The continuations the claimed record counted; this one makes it one more. */
  continuations: number;
  maxContinuations: number;
  progressJson?: string | undefined;
};

/**
 * RUNNING → QUEUED by the lease holder whose handler returned `ctx.continue()`: the slice
 * ends without spending an attempt (the attempt goes back to the one before the claim, as
 * an unclaim's does) and one more continuation is counted. The message is not acknowledged:
 * it comes back at once, still at the head of its group, so no later task of the key
 * starts in between, and the next slice runs from it.
 */
export const continueRun: Transition<ContinueInput> = {
  kind: 'transition',
  ...byLease<ContinueInput>(),
  name: 'continue',
  event: AuditEvent.CONTINUED,
  to: TaskStatus.QUEUED,
  detail: ({ lease, continuations, maxContinuations }) =>
    `continuation ${continuations + 1} of at most ${maxContinuations}; attempt ${lease.attempt} not spent`,
  set: ({ lease, continuations, progressJson }, now) => ({
    attempt: lease.attempt - 1,
    continuations: continuations + 1,
    progress: progressJson,
    progressAt: progressJson === undefined ? undefined : now,
  }),
  remove: LEASE,
  writes: ['attempt', 'continuations', 'progress', 'progressAt', ...LEASE],
  statusAt: (_input, now) => now,
};

/**
 * A step's item, written once: conditioned on its own absence, or on a thrown step's marker
 * there (which holds no result: the replay that ran the step again stores its result over
 * it), so nothing ever overwrites a stored result, a stale slice's included. A refusal
 * returns the stored item (ALL_OLD), whose result the caller then uses: the first result
 * stored is the one every slice sees.
 */
export const storeStep: Write<{ item: TaskItem }> = {
  kind: 'item',
  name: 'store the step of',
  fence: () => [or([notExists(TableSchema.PARTITION_KEY), equals('threw', 'threw', true)])],
  request: ({ item }) => ({ op: 'put', item }),
  writes: ['*'],
};

/**
 * A thrown step's marker (`threw: true`, no result) at its position, written once,
 * conditioned on its own absence as a step's result is: it never replaces a result, a
 * stale slice's included, nor another marker. It keeps the run's positions contiguous, so a
 * replay's reads never take a thrown step's position for the end of the steps.
 */
export const storeThrow: Write<{ item: TaskItem }> = {
  kind: 'item',
  name: 'store the thrown marker of',
  fence: () => [notExists(TableSchema.PARTITION_KEY)],
  request: ({ item }) => ({ op: 'put', item }),
  writes: ['*'],
};

/** A step's item deleted, if it is one of `taskId`'s (a purge, a restarting redrive). */
export const deleteStep: Write<{ key: string; taskId: string }> = {
  kind: 'item',
  name: 'delete the step of',
  fence: ({ taskId }) => [equals('taskId', 'taskId', taskId)],
  request: ({ key }) => ({ op: 'delete', key }),
  writes: ['*'],
  returnsOld: false,
};

/**
 * What a restarting redrive clears besides what every redrive does: the checkpoint, and the
 * signals and wait of the old epoch (docs/adr/0048-durable-sleep-signals-pause.md).
 */
const CHECKPOINT = [
  'checkpoint',
  'checkpointAt',
  'signals',
  'wait',
  'wakeAt',
  'waitSignals',
  'wokenAt',
] as const;

/**
 * `base` (a redrive), and the task's memory is cleared: the checkpoint is removed and the
 * task moves to step epoch `stepEpoch`, whose keys hold no step yet, so its next run calls
 * every step afresh. The old epoch's items are deleted after the write, or expire.
 */
function afresh<I extends { readonly reason?: string | undefined }>(
  base: Transition<I>,
  name: string,
): Transition<I & { stepEpoch: number }> {
  return {
    ...base,
    name,
    detail: (input) => `${base.detail?.(input) ?? 'redriven'}; steps and checkpoint cleared`,
    set: (input, now, retention) => ({
      ...base.set?.(input, now, retention),
      stepEpoch: input.stepEpoch,
    }),
    remove: [...(base.remove ?? []), ...CHECKPOINT],
    writes: [...base.writes, 'stepEpoch', ...CHECKPOINT],
  };
}

/** DEAD → PENDING, as `redrive`, with `{ restart: true }`: steps and checkpoint cleared. */
export const redriveAfresh = afresh(redrive, 'redrive afresh');

/** DEAD (parked) → QUEUED, as `redrive parked`, with `{ restart: true }`. */
export const redriveParkedAfresh = afresh(redriveParked, 'redrive parked afresh');
