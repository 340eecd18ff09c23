/**
 * The rows of the transition table that take a start from a rate limit's bucket (ADR 0026):
 * one item of the task table holding the limit's theoretical arrival time (`tat`, GCRA).
 * Each grant is one conditional UpdateItem whose condition is the limit check itself,
 * evaluated by DynamoDB on the stored value, so concurrent workers can never over-spend it.
 */
import { TableSchema } from '../../core/constants.js';
import { and, compare, notExists, or, Update } from './expression.js';
import type { Write } from './row.js';

/** How long an idle bucket outlives its last grant before its TTL may remove it. */
const IDLE_KEEP_MS = 3_600_000;

/** The TTL (epoch seconds): well after the bucket is idle again, when removing it changes nothing. */
function expiry(tat: number): number {
  return Math.ceil((tat + IDLE_KEEP_MS) / 1000);
}

/**
 * An idle bucket (`tat` ≤ now, or no item) grants a start now: `tat` becomes now plus one
 * emission interval.
 */
export const takeIdle: Write<{ key: string; now: number; emissionMs: number }> = {
  kind: 'item',
  name: 'take an idle rate bucket',
  fence: ({ now }) => [or([notExists('tat'), compare('tat', '<=', 'now', now)])],
  request: ({ key, now, emissionMs }) => ({
    op: 'update',
    key,
    update: new Update()
      .set('tat', now + emissionMs)
      .set(TableSchema.TTL_ATTRIBUTE, expiry(now + emissionMs))
      .build(),
  }),
  writes: ['tat', TableSchema.TTL_ATTRIBUTE],
};

/**
 * A bucket booked ahead (now < `tat` ≤ now + `horizonMs`) grants a start at its stored `tat`,
 * which moves on by one emission interval; the old `tat` comes back (UPDATED_OLD).
 */
export const takeBooked: Write<{
  key: string;
  now: number;
  emissionMs: number;
  horizonMs: number;
}> = {
  kind: 'item',
  name: 'take a booked rate bucket',
  fence: ({ now, horizonMs }) => [
    and([compare('tat', '>', 'now', now), compare('tat', '<=', 'latest', now + horizonMs)]),
  ],
  request: ({ key, now, emissionMs, horizonMs }) => ({
    op: 'update',
    key,
    update: new Update()
      .step('tat', emissionMs)
      .set(TableSchema.TTL_ATTRIBUTE, expiry(now + horizonMs + emissionMs))
      .build(),
    returns: 'UPDATED_OLD',
  }),
  writes: ['tat', TableSchema.TTL_ATTRIBUTE],
};
