/**
 * The rows of the transition table that park, redrive and release an ordering key
 * (docs/adr/0024-parked-keys.md), and those of the park items that list parked keys. Each
 * move is one conditional write on the task's own item: the key is held by the dead task's
 * message, not by a write on another item. Only the park item's write is a transaction, of
 * the item and a check of its task.
 */
import { AuditEvent, OnDead, TaskStatus } from '../../core/constants.js';
import type { TaskRecord } from '../../core/record.js';
import type { TaskItem } from '../record.js';
import { releaseDone } from '../status-index-keys.js';
import { equals, generationIs } from './expression.js';
import { expire, kill } from './lifecycle.js';
import { at, REDRIVE_REMOVES, type Seen, type Transition, type Write } from './row.js';

type KillInput = Parameters<(typeof kill)['fence']>[0];
type ExpireInput = Parameters<(typeof expire)['fence']>[0];

const parkedNote = (key: string): string => `; ordering key '${key}' parked`;

/**
 * `base`, and the task also parks its ordering key: `parkedKey` tells every later reader of
 * the record (the worker that receives its message again, the operator) that its message
 * holds the key.
 */
function andPark<I extends { readonly reason: string }>(
  base: Transition<I>,
  name: string,
): Transition<I & { parkedKey: string }> {
  return {
    ...base,
    name,
    writes: [...base.writes, 'parkedKey'],
    detail: (input) => `${input.reason}${parkedNote(input.parkedKey)}`,
    set: (input, now, retention) => ({
      ...base.set?.(input, now, retention),
      parkedKey: input.parkedKey,
    }),
  };
}

/** RUNNING → DEAD under the lease, as `kill`, parking the key. */
export const killAndPark = andPark<KillInput>(kill, 'kill and park');

/** RUNNING with an expired lease on the final attempt → DEAD, as `expire`, parking the key. */
export const expireAndPark = andPark<ExpireInput>(expire, 'expire and park');

type ParkedInput = {
  seen: Seen;
  parkedKey: string;
  reason?: string | undefined;
  /** The operator who acted (docs/adr/0039-operator-audit.md). */
  principal?: string | undefined;
};

/** The fence of a write on a parked task: still the DEAD task, with this key parked. */
const stillParked = ({ seen, parkedKey }: ParkedInput) => [
  equals('attempt', 'seenAttempt', seen.attempt),
  generationIs('seenGeneration', seen.generation),
  equals('parkedKey', 'parkedKey', parkedKey),
];

/**
 * DEAD (parked) → QUEUED with a fresh attempt budget, in place: no new message is sent,
 * because the one that runs it is already at the head of the key's group, ahead of every
 * later task of the key (the envelope names only the task, so it still claims it). The
 * generation still moves, as for any redrive: it marks the record as run before, so a
 * debounce fold, which requires a first generation, can never rewrite the payload this
 * redrive is to rerun (docs/adr/0033-debounce-fences.md).
 */
export const redriveParked: Transition<ParkedInput> = {
  kind: 'transition',
  name: 'redrive parked',
  from: [TaskStatus.DEAD],
  // Not while its release cancels dependents for this death (docs/adr/0031-dependency-fences.md).
  fence: (input) => [...stillParked(input), releaseDone()],
  event: AuditEvent.REDRIVEN,
  to: TaskStatus.QUEUED,
  task: ({ seen }) => seen,
  by: ({ principal }) => ({ attempt: 0, principal }),
  detail: ({ reason, parkedKey }) =>
    `${reason ?? 'redriven'}; runs first on ordering key '${parkedKey}'`,
  set: ({ seen }) => ({ attempt: 0, generation: seen.generation + 1 }),
  remove: [...REDRIVE_REMOVES, 'parkedKey'],
  writes: ['attempt', 'generation', ...REDRIVE_REMOVES, 'parkedKey'],
  statusAt: at,
};

/**
 * DEAD (parked) → DEAD without `parkedKey`: the operator gave up on the task, whose message
 * is then acknowledged as a finished task's, and the key's later tasks proceed.
 */
export const releaseKey: Transition<ParkedInput> = {
  kind: 'transition',
  name: 'release the key of',
  from: [TaskStatus.DEAD],
  fence: stillParked,
  event: AuditEvent.KEY_RELEASED,
  to: TaskStatus.DEAD,
  task: ({ seen }) => seen,
  by: ({ seen, principal }) => ({ attempt: seen.attempt, principal }),
  detail: ({ reason, parkedKey }) => `${reason ?? 'released'}; ordering key '${parkedKey}'`,
  remove: ['parkedKey'],
  writes: ['parkedKey'],
  statusAt: at,
};

/**
 * DEAD (parked) → the same, unchanged: the check of the park item's transaction, which writes
 * the item only while the task is still the DEAD one that parked this key (same attempt and
 * generation), so that a redrive or release that got there first makes the item's write lose.
 */
export const stillParkedCheck: Write<{
  task: Pick<TaskRecord, 'id' | 'attempt' | 'generation'>;
  parkedKey: string;
}> = {
  kind: 'mark',
  name: 'check the park of',
  from: [TaskStatus.DEAD],
  fence: ({ task, parkedKey }) => [
    equals('parkedKey', 'parkedKey', parkedKey),
    equals('attempt', 'attempt', task.attempt),
    generationIs('generation', task.generation),
  ],
  request: ({ task }) => ({ op: 'check', key: task.id }),
  writes: [],
  returnsOld: false,
};

/**
 * The park item of a key, written (or refreshed) whole: unconditional itself, and sent only
 * within a transaction with {@link stillParkedCheck}.
 */
export const writeParkItem: Write<{ item: TaskItem }> = {
  kind: 'item',
  name: 'write the park item of',
  fence: () => [],
  request: ({ item }) => ({ op: 'put', item }),
  writes: ['*'],
  returnsOld: false,
};

/** The park item of a key deleted, if it is still the one of `taskId`. */
export const deleteParkItem: Write<{ key: string; taskId: string }> = {
  kind: 'item',
  name: 'delete the park item of',
  fence: ({ taskId }) => [equals('taskId', 'taskId', taskId)],
  request: ({ key }) => ({ op: 'delete', key }),
  writes: ['*'],
  returnsOld: false,
};

/**
 * The key a task parks when it dies: its own, when it has one and its type parks (as the
 * record says, or as the worker's definition says, `onDead`).
 */
export function keyToPark(
  record: Pick<TaskRecord, 'orderingKey' | 'onDead'>,
  onDead?: OnDead | undefined,
): string | undefined {
  const parks = record.onDead === OnDead.PARK || onDead === OnDead.PARK;
  return parks ? record.orderingKey : undefined;
}
