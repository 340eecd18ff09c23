/**
 * The park items: one per parked ordering key, beside the tasks in the same table. An item
 * is an index entry, not the source of truth: the dead task's record (`parkedKey`) says the
 * key is parked, and the task's message, kept in flight at the head of the key's FIFO group,
 * holds it. The item makes parked keys listable without a Scan (through the status index,
 * under a partition of its own) and carries the receipt handle an operator's redrive or
 * release needs to let that message go at once (docs/adr/0024-parked-keys.md).
 */
import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { TableSchema, TaskStatus } from '../constants.js';
import { getItems } from './batch-get.js';
import { and, equals, generationIs } from './expression.js';
import type { TaskRecord } from './record.js';

/** A parked ordering key, as its park item records it. */
export interface ParkRecord {
  readonly orderingKey: string;
  /** The DEAD task whose message holds the key. */
  readonly taskId: string;
  readonly taskType: string;
  /** When the task died and parked the key (epoch ms). */
  readonly parkedAt: number;
  /** The held message's latest receipt handle, once a worker has held it. */
  readonly receiptHandle: string | undefined;
  /** The queue the held message is in. */
  readonly queueArn: string | undefined;
  /**
   * When the held message was first sent (epoch ms): SQS deletes it a retention period
   * later, and the key is then no longer held.
   */
  readonly messageSentAt: number | undefined;
}

/** What the park items need of the store. */
export interface ParkContext {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly clock: () => number;
}

/**
 * The partition key prefix of park items. It ends with a space, which no task id can hold
 * (ids are printable ASCII without spaces), so a park item never collides with a task.
 */
const PREFIX = 'parked-key ';
/** The status index partition all park items share; parking is rare, so one is enough. */
const INDEX_PARTITION = 'PARKED_KEY';

const keyOf = (orderingKey: string) => ({ [TableSchema.PARTITION_KEY]: `${PREFIX}${orderingKey}` });

/** The held message of a parked task, as the worker that holds it sees it. */
export interface HeldParkMessage {
  readonly receiptHandle: string;
  readonly queueArn: string;
  readonly sentAt: number | undefined;
}

/** Reads and writes the park items. */
export class ParkedKeys {
  constructor(private readonly ctx: ParkContext) {}

  /**
   * Writes (or refreshes) the park item of `task`'s key with the message that holds it, in
   * one transaction with a check that the task is still the DEAD one that parked this key
   * (same attempt and generation): a redrive or release that got there first makes this
   * write lose, so no item outlives its park. Returns false when it lost.
   */
  async record(task: TaskRecord, message: HeldParkMessage): Promise<boolean> {
    const key = task.parkedKey;
    if (key === undefined || task.status !== TaskStatus.DEAD) return false;
    const check = and([
      equals('status', 'dead', TaskStatus.DEAD),
      equals('parkedKey', 'parkedKey', key),
      equals('attempt', 'attempt', task.attempt),
      generationIs('generation', task.generation),
    ]);
    const now = this.ctx.clock();
    const parkedAt = task.finishedAt ?? now;
    try {
      await this.ctx.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.ctx.tableName,
                Key: { [TableSchema.PARTITION_KEY]: task.id },
                ConditionExpression: check.expression,
                ExpressionAttributeNames: check.names,
                ExpressionAttributeValues: check.values,
              },
            },
            {
              Put: {
                TableName: this.ctx.tableName,
                Item: {
                  ...keyOf(key),
                  kind: 'parked-key',
                  orderingKey: key,
                  taskId: task.id,
                  taskType: task.type,
                  parkedAt,
                  receiptHandle: message.receiptHandle,
                  queueArn: message.queueArn,
                  messageSentAt: message.sentAt,
                  updatedAt: now,
                  [TableSchema.STATUS_INDEX_PARTITION_KEY]: INDEX_PARTITION,
                  [TableSchema.STATUS_INDEX_SORT_KEY]: parkedAt,
                },
              },
            },
          ],
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof TransactionCanceledException) {
        const reasons = err.CancellationReasons ?? [];
        if (reasons[0]?.Code === 'ConditionalCheckFailed') return false;
      }
      throw err;
    }
  }

  /** The park item of a key, read consistently; undefined when the key is not parked. */
  async get(orderingKey: string): Promise<ParkRecord | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.ctx.tableName,
        Key: keyOf(orderingKey),
        ConsistentRead: true,
      }),
    );
    return out.Item === undefined ? undefined : fromParkItem(out.Item);
  }

  /** Deletes a key's park item if it is still the one of `taskId`. Returns whether it did. */
  async delete(orderingKey: string, taskId: string): Promise<boolean> {
    try {
      await this.ctx.doc.send(
        new DeleteCommand({
          TableName: this.ctx.tableName,
          Key: keyOf(orderingKey),
          ConditionExpression: '#taskId = :taskId',
          ExpressionAttributeNames: { '#taskId': 'taskId' },
          ExpressionAttributeValues: { ':taskId': taskId },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  /**
   * Every park item, oldest park first, through the status index (never a Scan). The index
   * projects keys only, so the items are then read (BatchGetItem); one deleted in between is
   * left out.
   */
  async list(): Promise<ParkRecord[]> {
    const ids: string[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.ctx.doc.send(
        new QueryCommand({
          TableName: this.ctx.tableName,
          IndexName: TableSchema.STATUS_INDEX,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': TableSchema.STATUS_INDEX_PARTITION_KEY },
          ExpressionAttributeValues: { ':pk': INDEX_PARTITION },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) ids.push(String(item[TableSchema.PARTITION_KEY]));
      startKey = out.LastEvaluatedKey;
    } while (startKey !== undefined);
    const found = await getItems(this.ctx.doc, this.ctx.tableName, ids, { consistent: true });
    return ids.flatMap((id) => {
      const item = found.get(id);
      return item === undefined ? [] : [fromParkItem(item)];
    });
  }
}

function fromParkItem(item: Record<string, unknown>): ParkRecord {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    orderingKey: String(item.orderingKey),
    taskId: String(item.taskId),
    taskType: String(item.taskType),
    parkedAt: Number(item.parkedAt),
    receiptHandle: text(item.receiptHandle),
    queueArn: text(item.queueArn),
    messageSentAt: typeof item.messageSentAt === 'number' ? item.messageSentAt : undefined,
  };
}
