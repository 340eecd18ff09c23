/** Reading a scenario's task records: by id, all of them, and waiting until all are terminal. */
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DynamoDBDocumentClient,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { isTerminal } from '../../../src/core/constants.js';
import type { TaskRecord } from '../../../src/core/record.js';
import { fromItem } from '../../../src/store/record.js';
import type { EmulatorExecutor } from '../../helpers/executor.js';
import { sleep } from './random.js';

/** Reads the records of `ids` with BatchGetItem (consistent), `fields` only if given. */
export async function readRecords(
  executor: EmulatorExecutor,
  ids: readonly string[],
  fields?: readonly string[],
): Promise<Map<string, TaskRecord>> {
  const doc = DynamoDBDocumentClient.from(executor.clients.dynamodb);
  const records = new Map<string, TaskRecord>();
  const projection =
    fields === undefined
      ? {}
      : {
          ProjectionExpression: fields.map((_, n) => `#f${n}`).join(', '),
          ExpressionAttributeNames: Object.fromEntries(fields.map((f, n) => [`#f${n}`, f])),
        };
  for (let i = 0; i < ids.length; i += 100) {
    let keys: Record<string, unknown>[] | undefined = ids
      .slice(i, i + 100)
      .map((id) => ({ pk: id }));
    while (keys !== undefined && keys.length > 0) {
      const out: BatchGetCommandOutput = await doc.send(
        new BatchGetCommand({
          RequestItems: {
            [executor.tableName]: { Keys: keys, ConsistentRead: true, ...projection },
          },
        }),
      );
      for (const item of out.Responses?.[executor.tableName] ?? []) {
        const record = fromItem(item);
        records.set(record.id, record);
      }
      keys = out.UnprocessedKeys?.[executor.tableName]?.Keys;
    }
  }
  return records;
}

/** Ids among `ids` whose task is not terminal yet; a missing record counts as open. */
export async function openAmong(
  executor: EmulatorExecutor,
  ids: readonly string[],
): Promise<string[]> {
  const records = await readRecords(executor, ids, ['pk', 'status']);
  return ids.filter((id) => {
    const record = records.get(id);
    return record === undefined || !isTerminal(record.status);
  });
}

/**
 * Waits until every task in `ids` is terminal (workers and sweeper keep running meanwhile),
 * or until `timeoutMs`. Whatever is still open then counts as lost. Only tasks still open
 * are read again: a terminal task stays terminal (no scenario redrives).
 */
export async function quiesce(
  executor: EmulatorExecutor,
  ids: readonly string[],
  timeoutMs: number,
): Promise<{ quiescent: boolean; open: number; waitedMs: number }> {
  const started = Date.now();
  let open = [...ids];
  for (;;) {
    open = await openAmong(executor, open);
    const waitedMs = Date.now() - started;
    if (open.length === 0) return { quiescent: true, open: 0, waitedMs };
    if (waitedMs > timeoutMs) return { quiescent: false, open: open.length, waitedMs };
    await sleep(1000);
  }
}

/** Every task record of the table (a Scan: test tooling, not the product). */
export async function readAllRecords(executor: EmulatorExecutor): Promise<Map<string, TaskRecord>> {
  const doc = DynamoDBDocumentClient.from(executor.clients.dynamodb);
  const records = new Map<string, TaskRecord>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({ TableName: executor.tableName, ExclusiveStartKey: startKey }),
    );
    for (const item of page.Items ?? []) {
      const record = fromItem(item);
      records.set(record.id, record);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return records;
}
