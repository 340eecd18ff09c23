/**
 * The rollback of a delayed enqueue as a conditional move to ROLLED_BACK, and the create
 * condition that lets a later enqueue of the same id revive it
 * (docs/adr/0015-rollback-moves-instead-of-deleting.md).
 */
import { AuditEvent, TableSchema, TaskStatus } from '../constants.js';
import type { TaskRecord } from './record.js';
import { expiresAtSeconds, type Retention } from './retention.js';
import type { SeenHistory, TransitionSpec } from './transition.js';

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
 * SCHEDULED → ROLLED_BACK, for the enqueue that wrote the record and could not create its
 * schedule. Allowed only on the record that enqueue still owns, the same condition the
 * DeleteItem it replaces had (ADR 0009): the record it wrote (same creation time),
 * untouched (SCHEDULED, never attempted, same generation) and not confirmed by another
 * enqueue. The record gets the retention TTL, like a finished task.
 */
export function rollbackTransition(
  seen: Pick<TaskRecord, 'id' | 'type' | 'generation' | 'createdAt'> & SeenHistory,
  reason: string,
  now: number,
  retention: Retention,
): TransitionSpec {
  return {
    name: 'roll back',
    seen,
    taskId: seen.id,
    taskType: seen.type,
    event: AuditEvent.ROLLED_BACK,
    to: TaskStatus.ROLLED_BACK,
    attempt: 0,
    detail: reason,
    condition:
      '#createdAt = :createdAt AND #status = :scheduled AND #attempt = :zero AND #generation = :generation AND attribute_not_exists(#scheduleConfirmed)',
    values: {
      ':createdAt': seen.createdAt,
      ':scheduled': TaskStatus.SCHEDULED,
      ':zero': 0,
      ':generation': seen.generation,
    },
    set: { [TableSchema.TTL_ATTRIBUTE]: expiresAtSeconds(now, retention) },
    statusAt: now,
  };
}

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
