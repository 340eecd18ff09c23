/**
 * Reads task items by id, 100 per BatchGetItem: how the readers of the status index get
 * what it does not project (docs/adr/0021-sparse-status-index.md).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TableSchema } from '../core/constants.js';
import type { TaskItem } from './record.js';

/** BatchGetItem's limit of keys per request. */
const BATCH_GET_KEYS = 100;
/** Rounds for the keys DynamoDB left unprocessed (throttling) before giving up. */
const MAX_ROUNDS = 8;

/** Options of {@link getItems}. */
export interface GetItemsOptions {
  /** Strongly consistent reads (twice the read units). @default false */
  readonly consistent?: boolean;
}

/**
 * The items of `ids` (duplicates read once), by id; an id without an item is absent from
 * the map.
 *
 * @throws Error when DynamoDB still leaves keys unprocessed after several rounds.
 */
export async function getItems(
  doc: DynamoDBDocumentClient,
  tableName: string,
  ids: readonly string[],
  options: GetItemsOptions = {},
): Promise<Map<string, TaskItem>> {
  const found = new Map<string, TaskItem>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += BATCH_GET_KEYS) {
    let keys: Record<string, unknown>[] = unique
      .slice(i, i + BATCH_GET_KEYS)
      .map((id) => ({ [TableSchema.PARTITION_KEY]: id }));
    for (let round = 0; keys.length > 0; round++) {
      if (round >= MAX_ROUNDS) {
        throw new Error(`BatchGetItem left ${keys.length} keys unprocessed after ${round} rounds`);
      }
      if (round > 0) await sleep(25 * 2 ** round);
      const out = await doc.send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: { Keys: keys, ConsistentRead: options.consistent === true },
          },
        }),
      );
      for (const item of out.Responses?.[tableName] ?? []) {
        found.set(String(item[TableSchema.PARTITION_KEY]), item);
      }
      keys = out.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return found;
}
