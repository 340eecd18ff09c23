/**
 * A rate limit's bucket: one item of the task table holding the limit's theoretical arrival
 * time (`tat`, GCRA), the earliest time the next start may be granted. Each grant is one
 * conditional UpdateItem whose condition is the limit check itself, evaluated by DynamoDB on
 * the stored value, so concurrent workers can never over-spend it (ADR 0026).
 *
 * The item's key contains a space, which no task id can (ids are printable ASCII without
 * spaces), and it has no status-index attributes: it never shows in `get`, `list`, `counts`
 * or a sweep. Its TTL removes it once idle: a missing bucket and an idle one mean the same.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { TableSchema } from '../core/constants.js';

/** How long an idle bucket outlives its last grant before its TTL may remove it. */
const IDLE_KEEP_MS = 3_600_000;

/** The conditional write to try, chosen from the bucket's last known `tat`. */
export type BucketWrite =
  /** The bucket is idle (`tat` ≤ now, or no item): the grant is for now. */
  | { readonly kind: 'idle'; readonly now: number; readonly emissionMs: number }
  /**
   * Starts are booked ahead (now < `tat` ≤ now + `horizonMs`): the grant is for the stored
   * `tat`, which moves on by `emissionMs`.
   */
  | {
      readonly kind: 'booked';
      readonly now: number;
      readonly emissionMs: number;
      readonly horizonMs: number;
    };

/** What a bucket write did. */
export type BucketWriteResult =
  /** Granted: the task may start at `slotAt`; the bucket's `tat` is now `tat`. */
  | { readonly kind: 'granted'; readonly slotAt: number; readonly tat: number }
  /** The condition failed: the bucket's `tat` (undefined: no item) was not as assumed. */
  | { readonly kind: 'refused'; readonly tat: number | undefined };

/** The bucket item's key for a type, and for an ordering key when the limit is per key. */
export function bucketKey(type: string, orderingKey: string | undefined): string {
  return orderingKey === undefined ? `rate-limit ${type}` : `rate-limit ${type} ${orderingKey}`;
}

/** The rate-limit buckets of one task table. */
export class TokenBuckets {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    dynamodb: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(dynamodb);
  }

  /**
   * One conditional UpdateItem on the bucket `key`. Refused (ALL_OLD) when the bucket is not
   * in the state `write` assumed, which the caller then decides from again.
   *
   * @throws whatever DynamoDB throws other than a condition failure, untouched.
   */
  async take(key: string, write: BucketWrite): Promise<BucketWriteResult> {
    const common = {
      TableName: this.tableName,
      Key: { [TableSchema.PARTITION_KEY]: key },
      ExpressionAttributeNames: { '#tat': 'tat', '#exp': TableSchema.TTL_ATTRIBUTE },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
    try {
      if (write.kind === 'idle') {
        const tat = write.now + write.emissionMs;
        await this.doc.send(
          new UpdateCommand({
            ...common,
            UpdateExpression: 'SET #tat = :tat, #exp = :exp',
            ConditionExpression: 'attribute_not_exists(#tat) OR #tat <= :now',
            ExpressionAttributeValues: { ':tat': tat, ':now': write.now, ':exp': expiry(tat) },
          }),
        );
        return { kind: 'granted', slotAt: write.now, tat };
      }
      const latest = write.now + write.horizonMs;
      const out = await this.doc.send(
        new UpdateCommand({
          ...common,
          UpdateExpression: 'SET #tat = #tat + :step, #exp = :exp',
          ConditionExpression: '#tat > :now AND #tat <= :latest',
          ExpressionAttributeValues: {
            ':step': write.emissionMs,
            ':now': write.now,
            ':latest': latest,
            ':exp': expiry(latest + write.emissionMs),
          },
          ReturnValues: 'UPDATED_OLD',
        }),
      );
      const slotAt = Number(out.Attributes?.tat);
      return { kind: 'granted', slotAt, tat: slotAt + write.emissionMs };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      const old = err.Item === undefined ? undefined : unmarshall(err.Item);
      return { kind: 'refused', tat: typeof old?.tat === 'number' ? old.tat : undefined };
    }
  }
}

/** The TTL (epoch seconds): well after the bucket is idle again, when removing it changes nothing. */
function expiry(tat: number): number {
  return Math.ceil((tat + IDLE_KEEP_MS) / 1000);
}
