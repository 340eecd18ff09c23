/**
 * The rows of the transition table on a rate limit's bucket (ADR 0026, amended by ADR 0053):
 * one item of the task table holding the limit's theoretical arrival time (`tat`, GCRA) and
 * the line of deferred starts (`queueAt`).
 * - A grant is one conditional UpdateItem whose condition is the limit check itself,
 *   evaluated by DynamoDB on the stored value, so concurrent workers can never over-spend it.
 * - A place in the line is one conditional UpdateItem too, taken only while the bucket is
 *   full: it grants nothing, it tells a deferred task when to come back, so that the
 *   deferred tasks return one emission interval apart instead of all at once.
 * - Each write serves `count` tasks of one worker at once: that many consecutive starts, or
 *   places, one emission interval apart.
 */
import { TableSchema } from '../../core/constants.js';
import { and, compare, lessThanAttribute, not, notExists, or, Update } from './expression.js';
import type { Write } from './row.js';

/** How long an idle bucket outlives its last grant before its TTL may remove it. */
const IDLE_KEEP_MS = 3_600_000;

/** The TTL (epoch seconds): well after the bucket is idle again, when removing it changes nothing. */
function expiry(tat: number): number {
  return Math.ceil((tat + IDLE_KEEP_MS) / 1000);
}

/**
 * An idle bucket (`tat` ≤ now, or no item) grants `count` starts, one emission interval
 * apart from now: `tat` becomes now plus `count` intervals.
 */
export const takeIdle: Write<{ key: string; now: number; emissionMs: number; count: number }> = {
  kind: 'item',
  name: 'take an idle rate bucket',
  fence: ({ now }) => [or([notExists('tat'), compare('tat', '<=', 'now', now)])],
  request: ({ key, now, emissionMs, count }) => ({
    op: 'update',
    key,
    update: new Update()
      .set('tat', now + count * emissionMs)
      .set(TableSchema.TTL_ATTRIBUTE, expiry(now + count * emissionMs))
      .build(),
  }),
  writes: ['tat', TableSchema.TTL_ATTRIBUTE],
};

/**
 * A bucket booked ahead (now < `tat`, and its `count`th start from `tat` on within
 * now + `horizonMs`) grants `count` starts, one emission interval apart from its stored
 * `tat`, which moves on by `count` intervals; the old `tat` comes back (UPDATED_OLD).
 */
export const takeBooked: Write<{
  key: string;
  now: number;
  emissionMs: number;
  horizonMs: number;
  count: number;
}> = {
  kind: 'item',
  name: 'take a booked rate bucket',
  fence: ({ now, horizonMs, emissionMs, count }) => [
    and([
      compare('tat', '>', 'now', now),
      compare('tat', '<=', 'latest', now + horizonMs - (count - 1) * emissionMs),
    ]),
  ],
  request: ({ key, now, emissionMs, horizonMs, count }) => ({
    op: 'update',
    key,
    update: new Update()
      .step('tat', count * emissionMs)
      .set(TableSchema.TTL_ATTRIBUTE, expiry(now + horizonMs + emissionMs))
      .build(),
    returns: 'UPDATED_OLD',
  }),
  writes: ['tat', TableSchema.TTL_ATTRIBUTE],
};

/** What both places in the line require: the bucket has no start within `full` (now + horizon). */
const bucketFull = ({ full }: { full: number }) => compare('tat', '>', 'full', full);

/** The input of a place in the line: `count` places, for the tasks of one worker. */
type QueueInput = { key: string; full: number; emissionMs: number; count: number };

/**
 * The first places in the line of a full bucket (no line yet, or one that `tat` has
 * passed): `count` places one emission interval apart from the stored `tat`, and `queueAt`
 * becomes the one after them. The item comes back whole (ALL_NEW), from which the places are
 * worked out. The TTL is left as the grants set it: a line outlived by its bucket is only a
 * hint lost.
 */
export const queueFirst: Write<QueueInput> = {
  kind: 'item',
  name: 'take the first place in a rate bucket line',
  fence: (input) => [
    bucketFull(input),
    or([notExists('queueAt'), not(lessThanAttribute('tat', 'queueAt'))]),
  ],
  request: ({ key, emissionMs, count }) => ({
    op: 'update',
    key,
    update: new Update().offset('queueAt', 'tat', count * emissionMs).build(),
    returns: 'ALL_NEW',
  }),
  writes: ['queueAt'],
};

/**
 * The next places in the line of a full bucket (`queueAt` beyond `tat`): `count` places
 * one emission interval apart from the stored `queueAt`, which moves on by `count` intervals;
 * the item comes back whole (ALL_NEW).
 */
export const queueNext: Write<QueueInput> = {
  kind: 'item',
  name: 'take the next place in a rate bucket line',
  fence: (input) => [bucketFull(input), lessThanAttribute('tat', 'queueAt')],
  request: ({ key, emissionMs, count }) => ({
    op: 'update',
    key,
    update: new Update().step('queueAt', count * emissionMs).build(),
    returns: 'ALL_NEW',
  }),
  writes: ['queueAt'],
};
