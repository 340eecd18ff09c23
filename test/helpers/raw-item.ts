/** Reads and writes task items as stored, bypassing the task store (integration tests). */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { itemSize } from '../../bench/lib/item-size.js';
import { TableSchema } from '../../src/core/constants.js';
import type { TestExecutor } from './executor.js';

/** The stored item of a task, unmarshalled; throws when there is none. */
export async function rawItem(
  executor: TestExecutor,
  id: string,
): Promise<Record<string, unknown>> {
  const out = await executor.clients.dynamodb.send(
    new GetItemCommand({
      TableName: executor.tableName,
      Key: marshall({ [TableSchema.PARTITION_KEY]: id }),
      ConsistentRead: true,
    }),
  );
  if (out.Item === undefined) throw new Error(`no item ${id}`);
  return unmarshall(out.Item);
}

/** The stored size of a task's item, by DynamoDB's rules. */
export async function rawItemBytes(executor: TestExecutor, id: string): Promise<number> {
  return itemSize(await rawItem(executor, id));
}

/** Overwrites a task's item as given (e.g. corrupt, or left by an older version). */
export async function putRawItem(
  executor: TestExecutor,
  item: Record<string, unknown>,
): Promise<void> {
  await executor.clients.dynamodb.send(
    new PutItemCommand({
      TableName: executor.tableName,
      Item: marshall(item, { removeUndefinedValues: true }),
    }),
  );
}
