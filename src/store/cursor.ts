import { TableSchema } from '../core/constants.js';
import { ValidationError } from '../core/errors.js';

/** Encodes a list position: the shard reached and DynamoDB's key within it. */
export function encodeCursor(shard: number, startKey: Record<string, unknown> | undefined): string {
  return Buffer.from(JSON.stringify({ shard, startKey })).toString('base64url');
}

/** True for an object holding exactly the status index's key attributes and the table's key. */
function isIndexKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value).sort();
  const expected = [
    TableSchema.PARTITION_KEY,
    TableSchema.STATUS_INDEX_PARTITION_KEY,
    TableSchema.STATUS_INDEX_SORT_KEY,
  ].sort();
  return keys.length === expected.length && keys.every((k, i) => k === expected[i]);
}

/** @throws ValidationError when the cursor was not produced by `listTasks` (queries.ts). */
export function decodeCursor(
  cursor: string | undefined,
  shards: number,
): { shard: number; startKey: Record<string, unknown> | undefined } {
  if (cursor === undefined) return { shard: 0, startKey: undefined };
  let parsed: { shard?: unknown; startKey?: unknown } | null = null;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // Reported below.
  }
  const shard = parsed?.shard;
  const startKey = parsed?.startKey;
  if (
    typeof shard !== 'number' ||
    !Number.isInteger(shard) ||
    shard < 0 ||
    shard >= shards ||
    (startKey !== undefined && !isIndexKey(startKey))
  ) {
    throw new ValidationError('list options', [
      { path: 'cursor', message: 'expected a cursor returned by a previous list call' },
    ]);
  }
  return { shard, startKey: startKey as Record<string, unknown> | undefined };
}

/** Encodes the position of a Scan of the table: the table key it stopped at. */
export function encodeScanCursor(startKey: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ scanKey: startKey })).toString('base64url');
}

/**
 * The cursor of a list of QUEUED tasks whose index part is done and whose Scan of the tasks
 * off the index has not begun (docs/adr/0068-a-retry-stays-off-the-index.md).
 */
export const SCAN_START_CURSOR = Buffer.from(JSON.stringify({ scanKey: 'start' })).toString(
  'base64url',
);

/** True for a cursor of a Scan's part ({@link encodeScanCursor}, {@link SCAN_START_CURSOR}). */
export function isScanCursor(cursor: string | undefined): boolean {
  if (cursor === undefined) return false;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && 'scanKey' in parsed;
  } catch {
    return false;
  }
}

/** @throws ValidationError when the cursor was not produced by a scanned `listTasks` (queries.ts). */
export function decodeScanCursor(cursor: string | undefined): Record<string, unknown> | undefined {
  if (cursor === undefined || cursor === SCAN_START_CURSOR) return undefined;
  let parsed: { scanKey?: unknown } | null = null;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // Reported below.
  }
  const key = parsed?.scanKey;
  const keys = typeof key === 'object' && key !== null ? Object.keys(key) : [];
  if (keys.length !== 1 || keys[0] !== TableSchema.PARTITION_KEY) {
    throw new ValidationError('list options', [
      { path: 'cursor', message: 'expected a cursor returned by a previous list call' },
    ]);
  }
  return key as Record<string, unknown>;
}
