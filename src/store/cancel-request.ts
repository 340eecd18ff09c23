/**
 * The request to cancel a RUNNING task: one conditional UpdateItem that marks the record
 * (`cancelRequestedAt`) and notes the request in its history, leaving the status, the lease
 * and the status index alone. The lease holder sees the mark on its next heartbeat (the
 * heartbeat's write returns the record) and ends the task CANCELLED with its own fenced
 * write (docs/adr/0022-progress-and-running-cancel.md).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AuditEvent, TableSchema, TaskStatus } from '../core/constants.js';
import { TransitionRejectedError } from '../core/errors.js';
import type { HistoryEntry, TaskRecord } from '../core/record.js';
import { truncate } from '../core/record.js';
import { auditEntry } from '../observability/audit.js';
import { MAX_DETAIL_CHARS } from './history.js';
import { fromItem, refusedRecord } from './record.js';
import type { WriteContext } from './record-writes.js';
import { toStoredEntry } from './stored-history.js';

/** What {@link requestCancel} did. */
export type CancelRequest =
  /** The mark was written now. */
  | { readonly kind: 'requested'; readonly record: TaskRecord }
  /** The task was already marked; nothing was written. */
  | { readonly kind: 'already-requested'; readonly record: TaskRecord };

/**
 * RUNNING, not yet asked → RUNNING with `cancelRequestedAt`. Not fenced by the lease: the
 * request is for the task, whichever attempt holds it. Asking twice writes once.
 *
 * @throws TransitionRejectedError when the task is not RUNNING (or does not exist); its
 *   `current` is the record DynamoDB saw, so the caller can cancel a QUEUED task instead.
 */
export async function requestCancel(
  ctx: WriteContext,
  seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'>,
  reason: string | undefined,
  principal?: string,
): Promise<CancelRequest> {
  const now = ctx.clock();
  const entry: HistoryEntry = {
    event: AuditEvent.CANCEL_REQUESTED,
    at: now,
    attempt: seen.attempt,
    status: TaskStatus.RUNNING,
    ...(reason === undefined ? {} : { detail: truncate(reason, MAX_DETAIL_CHARS) }),
    ...(principal === undefined ? {} : { principal }),
  };
  try {
    const out = await ctx.doc.send(
      new UpdateCommand({
        TableName: ctx.tableName,
        Key: { [TableSchema.PARTITION_KEY]: seen.id },
        // One entry at most per task (the mark is never set twice while it runs), so the
        // history stays bounded; the next transition folds it within its budget.
        UpdateExpression:
          'SET #requested = :now, #updatedAt = :now, #history = list_append(#history, :entry)',
        ConditionExpression:
          'attribute_exists(#pk) AND #status = :running AND attribute_not_exists(#requested)',
        ExpressionAttributeNames: {
          '#pk': TableSchema.PARTITION_KEY,
          '#status': 'status',
          '#requested': 'cancelRequestedAt',
          '#updatedAt': 'updatedAt',
          '#history': 'history',
        },
        ExpressionAttributeValues: {
          ':now': now,
          ':running': TaskStatus.RUNNING,
          ':entry': [toStoredEntry(entry)],
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const record = fromItem(out.Attributes ?? {});
    auditEntry(ctx.logger, record, entry);
    return { kind: 'requested', record };
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    const current = refusedRecord(err);
    if (current?.status === TaskStatus.RUNNING && current.cancelRequested) {
      return { kind: 'already-requested', record: current };
    }
    throw new TransitionRejectedError('request the cancel of', seen.id, current);
  }
}
