/**
 * The stored size of a DynamoDB item, as DynamoDB counts it against its 400 KB limit:
 * attribute names plus values (strings as UTF-8, numbers ~1 byte per 2 digits + 1, and
 * 3 bytes of overhead per list or map plus 1 per element), read raw with GetItem.
 */
import { type AttributeValue, type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S, 'utf8');
  if (value.N !== undefined) return Math.ceil(value.N.replace(/^-|\.|e.*$/gi, '').length / 2) + 1;
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((n, s) => n + Buffer.byteLength(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((n, s) => n + s.length, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((n, v) => n + 1 + valueBytes(v), 0);
  if (value.M !== undefined) return 3 + itemBytes(value.M) + Object.keys(value.M).length;
  return 0;
}

/** Bytes of an item (or of a map's contents). */
export function itemBytes(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce(
    (n, [name, value]) => n + Buffer.byteLength(name, 'utf8') + valueBytes(value),
    0,
  );
}

/** The raw item of one task, or undefined when there is none. */
export async function rawTaskItem(
  dynamodb: DynamoDBClient,
  tableName: string,
  id: string,
): Promise<Record<string, AttributeValue> | undefined> {
  const out = await dynamodb.send(
    new GetItemCommand({ TableName: tableName, Key: { pk: { S: id } }, ConsistentRead: true }),
  );
  return out.Item;
}
