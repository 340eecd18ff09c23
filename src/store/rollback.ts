/**
 * What a rolled-back delayed enqueue changes outside its own transition (the move to
 * ROLLED_BACK is a row of store/transitions.ts): the create condition that lets a later
 * enqueue of the same id revive it, and how a refused confirmation is read
 * (docs/adr/0015-rollback-moves-instead-of-deleting.md).
 */
import { TableSchema, TaskStatus } from '../core/constants.js';
import type { TaskRecord } from '../core/record.js';
import { releaseDone } from './status-index-keys.js';

const released = releaseDone();

/**
 * The one condition of a create's PutItem: no record has the id, or the record there was
 * rolled back (its enqueue threw, so nobody was told it exists) and the release of the
 * dependents that registered on it while it was SCHEDULED is done: they are cancelled, so
 * none of them waits for the new task that reuses the id
 * (docs/adr/0031-dependency-fences.md). Anything else is kept and returned (ALL_OLD) for the
 * caller to compare, or, rolled back, to finish that release first.
 */
export const CREATE_CONDITION = {
  ConditionExpression: `attribute_not_exists(#pk) OR (#status = :rolledBack AND ${released.expression})`,
  ExpressionAttributeNames: {
    '#pk': TableSchema.PARTITION_KEY,
    '#status': 'status',
    ...released.names,
  },
  ExpressionAttributeValues: { ':rolledBack': TaskStatus.ROLLED_BACK, ...released.values },
} as const;

/**
 * How a refused schedule confirmation is read: `gone` when the record seen is no longer
 * there to be confirmed (none, a later record of the id, or rolled back), else `moved-on`.
 */
export function refusedConfirmation(
  current: TaskRecord | undefined,
  seen: Pick<TaskRecord, 'createdAt'>,
): 'moved-on' | 'gone' {
  if (current === undefined || current.createdAt !== seen.createdAt) return 'gone';
  return current.status === TaskStatus.ROLLED_BACK ? 'gone' : 'moved-on';
}
