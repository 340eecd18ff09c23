/**
 * Writes that older versions of Tasklane made and this one no longer does, for tests of the
 * records they left behind. The SDK stopped marking sends (PENDING → QUEUED) when the sweeper
 * started re-sending old PENDING tasks (docs/adr/0020-claim-without-pre-read.md); records it
 * marked must still be claimed, cancelled and re-sent (docs/adr/0027-compact-history.md).
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { AuditEvent, Defaults, TableSchema, TaskStatus } from '../../src/core/constants.js';
import { TransitionRejectedError } from '../../src/core/errors.js';
import type { TaskRecord } from '../../src/core/record.js';
import { fromItem, statusShard, statusShardKey } from '../../src/store/record.js';

/**
 * PENDING → QUEUED as an older version's `markSent` wrote it: one conditional UpdateItem
 * pinned to the generation and attempt seen, with a `sent` entry in the history's old,
 * spelled-out form.
 *
 * @throws TransitionRejectedError, with the record DynamoDB held, when the task is not the
 *   PENDING record seen.
 */
export async function markSentAsOlderVersionsDid(
  dynamodb: DynamoDBClient,
  tableName: string,
  seen: Pick<TaskRecord, 'id' | 'generation' | 'attempt'>,
  now: number = Date.now(),
): Promise<TaskRecord> {
  const doc = DynamoDBDocumentClient.from(dynamodb);
  const entry = { event: AuditEvent.SENT, at: now, attempt: seen.attempt, status: 'QUEUED' };
  const shard = statusShard(seen.id, Defaults.STATUS_SHARDS);
  try {
    const out = await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { [TableSchema.PARTITION_KEY]: seen.id },
        UpdateExpression:
          'SET #status = :queued, #updatedAt = :now, #shard = :shard, #at = :now, #history = list_append(#history, :entry)',
        ConditionExpression:
          'attribute_exists(#pk) AND #status = :pending AND (attribute_not_exists(#generation) OR #generation = :generation) AND #attempt = :attempt',
        ExpressionAttributeNames: {
          '#pk': TableSchema.PARTITION_KEY,
          '#status': 'status',
          '#updatedAt': 'updatedAt',
          '#shard': TableSchema.STATUS_INDEX_PARTITION_KEY,
          '#at': TableSchema.STATUS_INDEX_SORT_KEY,
          '#history': 'history',
          '#generation': 'generation',
          '#attempt': 'attempt',
        },
        ExpressionAttributeValues: {
          ':queued': TaskStatus.QUEUED,
          ':pending': TaskStatus.PENDING,
          ':now': now,
          ':shard': statusShardKey(TaskStatus.QUEUED, shard),
          ':entry': [entry],
          ':generation': seen.generation,
          ':attempt': seen.attempt,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return fromItem(out.Attributes ?? {});
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    throw new TransitionRejectedError(
      'mark as sent',
      seen.id,
      err.Item === undefined ? undefined : fromItem(unmarshall(err.Item)),
    );
  }
}
