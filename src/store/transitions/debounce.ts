/**
 * The rows of the transition table behind debounced enqueues (docs/adr/0029-debounce.md,
 * docs/adr/0033-debounce-fences.md): the fold of an enqueue into the key's waiting task, and
 * the key's pointer moved up to a later generation.
 */
import { TableSchema, TaskStatus } from '../../core/constants.js';
import { type DebounceSpec, MAX_WAIT_WINDOWS } from '../../core/debounce.js';
import { expiresAtSeconds } from '../../settings/retention.js';
import type { NewTask } from '../new-task.js';
import {
  type Condition,
  compare,
  equals,
  generationIs,
  notExists,
  or,
  Update,
} from './expression.js';
import type { Write } from './row.js';

/** The statuses of a task that has not started: only these absorb an enqueue. */
export const NOT_STARTED: readonly TaskStatus[] = [
  TaskStatus.SCHEDULED,
  TaskStatus.PENDING,
  TaskStatus.QUEUED,
];

/**
 * What a 'last' absorb writes, prepared as for a new task: the payload, runAt and the
 * fields the folding producer's definition decides, with the integrity tag over exactly
 * these values (docs/adr/0035-integrity-tag-v2.md). Its ordering key is not written but
 * required: a fold with another one is a new task.
 */
export type Replacement = Pick<
  NewTask,
  | 'payloadJson'
  | 'payloadRef'
  | 'payloadHash'
  | 'integrityTag'
  | 'runAt'
  | 'maxAttempts'
  | 'timeoutMs'
  | 'lane'
  | 'onDead'
  | 'orderingKey'
>;

/** The oldest creation time of a 'last' task that still absorbs at `now`. */
export function oldestAbsorbing(spec: DebounceSpec, now: number): number {
  return now - MAX_WAIT_WINDOWS * spec.windowMs;
}

/** What a fold names: the task, the key's option, and for 'last' what replaces the payload. */
export type FoldInput = {
  taskId: string;
  spec: DebounceSpec;
  replacement: Replacement | undefined;
  /** `runAt` 'move's up to the replacement's, or is kept (the stored one is later). */
  runAt: 'move' | 'keep';
};

/**
 * SCHEDULED | PENDING | QUEUED, never attempted, first generation, this key's → the same,
 * the enqueue folded in. The condition: the task waits, was never attempted (attempt 0, and no
 * claim of it was given back and no slice of it continued:
 * docs/adr/0064-a-given-back-claim-ends-the-debounce-window.md) and is in its
 * first generation (`generationIs(1)`: a redrive moves it, and a claim moves the status and
 * attempt in its own single write, so the two writes are ordered and exactly one of them sees
 * the other); for 'last', young enough (at most {@link MAX_WAIT_WINDOWS} windows old), of
 * the ordering key the replacement was tagged with (the tag covers it), and its stored
 * `runAt` at most the new one ('move') or after it ('keep': 'last' never moves `runAt`
 * earlier).
 *
 * The changes: `absorbed` counted; with a replacement, the payload (inline or its claim
 * check), its hash and integrity tag, the fields the tag covers that the folding producer's
 * definition decides (written as tagged, so a producer of another release cannot leave a tag
 * the record fails), and, when 'move', `runAt` with the status index's time, so the sweeper
 * looks at the task again only once its new window has ended.
 */
export const fold: Write<FoldInput> = {
  kind: 'mark',
  name: 'fold an enqueue into',
  from: NOT_STARTED,
  fence: ({ spec, replacement, runAt }, now) => {
    const conditions: Condition[] = [
      equals('attempt', 'zero', 0),
      // A claim given back or a continuation (ADR 0064) returned the attempt to 0, but the
      // task was taken: its window has ended.
      notExists('unclaimed'),
      notExists('continuations'),
      generationIs('one', 1),
      equals('debounceKey', 'key', spec.key),
    ];
    if (replacement === undefined) return conditions;
    conditions.push(compare('createdAt', '>=', 'oldest', oldestAbsorbing(spec, now)));
    conditions.push(
      replacement.orderingKey === undefined
        ? notExists('orderingKey')
        : equals('orderingKey', 'orderingKey', replacement.orderingKey),
    );
    const newRunAt = replacement.runAt;
    if (newRunAt !== undefined) {
      conditions.push(
        runAt === 'move'
          ? or([notExists('runAt'), compare('runAt', '<=', 'runAt', newRunAt)])
          : compare('runAt', '>', 'runAt', newRunAt),
      );
    }
    return conditions;
  },
  request: ({ taskId, replacement, runAt }, now) => {
    const update = new Update().increment('absorbed').set('updatedAt', now);
    if (replacement !== undefined) {
      update.set('payloadHash', replacement.payloadHash);
      if (replacement.payloadRef === undefined) {
        update.set('payload', replacement.payloadJson).remove('payloadRef');
      } else {
        update.set('payloadRef', replacement.payloadRef).remove('payload');
      }
      if (replacement.integrityTag === undefined) update.remove('integrityTag');
      else update.set('integrityTag', replacement.integrityTag);
      update.set('maxAttempts', replacement.maxAttempts).set('timeoutMs', replacement.timeoutMs);
      for (const field of ['lane', 'onDead'] as const) {
        const value = replacement[field];
        if (value === undefined) update.remove(field);
        else update.set(field, value);
      }
      if (runAt === 'move' && replacement.runAt !== undefined) {
        update
          .set('runAt', replacement.runAt)
          .set(TableSchema.STATUS_INDEX_SORT_KEY, replacement.runAt);
      }
    }
    return { op: 'update', key: taskId, update: update.build(), returns: 'ALL_NEW' };
  },
  writes: [
    'absorbed',
    'updatedAt',
    'payloadHash',
    'payload',
    'payloadRef',
    'integrityTag',
    'maxAttempts',
    'timeoutMs',
    'lane',
    'onDead',
    'runAt',
    TableSchema.STATUS_INDEX_SORT_KEY,
  ],
};

/**
 * The pointer of a debounce key moved up to `generation`, never down: the stored one must be
 * lower, or absent. Kept, with a TTL, until `keepUntil` (none when tasks are kept forever).
 */
export const advancePointer: Write<{
  key: string;
  generation: number;
  keepUntil: number | undefined;
}> = {
  kind: 'item',
  name: 'advance the debounce pointer',
  fence: ({ generation }) => [
    or([notExists('generation'), compare('generation', '<', 'generation', generation)]),
  ],
  request: ({ key, generation, keepUntil }, _now, { retention }) => ({
    op: 'update',
    key,
    update: new Update()
      .set('generation', generation)
      .set(
        TableSchema.TTL_ATTRIBUTE,
        keepUntil === undefined ? undefined : expiresAtSeconds(keepUntil, retention),
      )
      .build(),
  }),
  writes: ['generation', TableSchema.TTL_ATTRIBUTE],
  returnsOld: false,
};
