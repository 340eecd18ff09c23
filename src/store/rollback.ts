/**
 * What a rolled-back delayed enqueue changes outside its own transition (the move to
 * ROLLED_BACK is a row of store/transitions.ts): the create condition that lets a later
 * enqueue of the same id revive it, and how a refused confirmation is read
 * (docs/adr/0015-rollback-moves-instead-of-deleting.md).
 */
import { TableSchema, TaskStatus } from '../constants.js';
import type { TaskRecord } from './record.js';

/**
 * The one condition of a create's PutItem: no record has the id, or the record there was
 * rolled back (its enqueue threw, so nobody was told it exists). Anything else is kept and
 * returned (ALL_OLD) for the caller to compare.
 */
export const CREATE_CONDITION = {
  ConditionExpression: 'attribute_not_exists(#pk) OR #status = :rolledBack',
  ExpressionAttributeNames: { '#pk': TableSchema.PARTITION_KEY, '#status': 'status' },
  ExpressionAttributeValues: { ':rolledBack': TaskStatus.ROLLED_BACK },
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
