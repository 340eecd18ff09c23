/**
 * The request to cancel a RUNNING task: one conditional UpdateItem that marks the record
 * (`cancelRequestedAt`) and notes the request in the producer's own history list (a
 * producer's grant may not name `history`: store/producer-history.ts), leaving the status,
 * the lease and the status index alone. The lease holder sees the mark on its next heartbeat (the
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
import { MAX_PRODUCER_ENTRIES, PRODUCER_HISTORY, producerEntryCount } from './producer-history.js';
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
  seen: Pick<TaskRecord, 'id' | 'type' | 'attempt'> & Partial<Pick<TaskRecord, 'history'>>,
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
  // One entry at most per run (the mark is never set twice while it runs, and only a
  // redrive starts another), and no more than the list's bound over the record's life.
  const noted = producerEntryCount(seen.history ?? []) < MAX_PRODUCER_ENTRIES;
  try {
    const out = await ctx.doc.send(
      new UpdateCommand({
        TableName: ctx.tableName,
        Key: { [TableSchema.PARTITION_KEY]: seen.id },
        UpdateExpression: noted
          ? 'SET #requested = :now, #updatedAt = :now, #notes = list_append(if_not_exists(#notes, :empty), :entry)'
          : 'SET #requested = :now, #updatedAt = :now',
        ConditionExpression:
          'attribute_exists(#pk) AND #status = :running AND attribute_not_exists(#requested)',
        ExpressionAttributeNames: {
          '#pk': TableSchema.PARTITION_KEY,
          '#status': 'status',
          '#requested': 'cancelRequestedAt',
          '#updatedAt': 'updatedAt',
          ...(noted ? { '#notes': PRODUCER_HISTORY } : {}),
        },
        ExpressionAttributeValues: {
          ':now': now,
          ':running': TaskStatus.RUNNING,
          ...(noted ? { ':entry': [toStoredEntry(entry)], ':empty': [] } : {}),
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
