/**
 * What one write to a DynamoDB table costs its global secondary index, from the item's image
 * before and after the write, by AWS's rules (DynamoDB Developer Guide, "Provisioned
 * throughput considerations for global secondary indexes"):
 *
 * - an item without the index's key attributes is not in the index (a sparse index);
 * - a write that adds the key puts an index entry; one that removes it deletes the entry;
 * - a write that changes the key deletes the old entry and puts the new one (two writes);
 * - a write that keeps the key but changes a projected attribute updates the entry (one write);
 * - a write that changes nothing the index holds costs the index nothing;
 * - each index write is one unit per started KB of the projected entry (keys of the table and
 *   the index, plus the projected attributes).
 *
 * Working from images, not from the shape of the code's writes, keeps the count right
 * whatever the index keys, projects or leaves sparse.
 */
import { itemSize, writeUnits } from './item-size.js';

/** The index as DescribeTable reports it. */
export interface IndexShape {
  /** The table's key attributes. */
  readonly tableKey: readonly string[];
  /** The index's partition key, then its sort key when it has one. */
  readonly indexKey: readonly string[];
  readonly projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  /** INCLUDE: the projected non-key attributes. */
  readonly nonKeyAttributes: readonly string[];
}

/** An item in either representation (wire or plain); `undefined` when absent. */
export type Image = Record<string, unknown> | undefined;

/** One index write: the partition key value it lands on, and its units. */
export interface IndexWrite {
  readonly kind: 'put' | 'delete' | 'update';
  /** The value of the index partition key the write lands on (e.g. `PENDING#3`). */
  readonly partition: string;
  readonly units: number;
}

/** The part of an item the index holds, or `undefined` when the item is not indexed. */
export function indexEntry(item: Image, shape: IndexShape): Record<string, unknown> | undefined {
  if (item === undefined || !shape.indexKey.every((a) => a in item)) return undefined;
  if (shape.projection === 'ALL') return item;
  const kept = new Set([
    ...shape.tableKey,
    ...shape.indexKey,
    ...(shape.projection === 'INCLUDE' ? shape.nonKeyAttributes : []),
  ]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => kept.has(name)));
}

/** The string value of an attribute, wire (`{ S: 'x' }`) or plain. */
export function attributeText(value: unknown): string {
  if (value !== null && typeof value === 'object') {
    const inner = Object.values(value as Record<string, unknown>)[0];
    return String(inner);
  }
  return String(value);
}

/** JSON with object keys sorted, so that attribute order does not matter. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : v,
  );
}

function keyOf(entry: Record<string, unknown>, shape: IndexShape): string {
  return JSON.stringify(shape.indexKey.map((a) => attributeText(entry[a])));
}

function partitionOf(entry: Record<string, unknown>, shape: IndexShape): string {
  return attributeText(entry[shape.indexKey[0] as string]);
}

/** The index writes of one table write that turned `before` into `after`. */
export function indexWrites(before: Image, after: Image, shape: IndexShape): IndexWrite[] {
  const old = indexEntry(before, shape);
  const next = indexEntry(after, shape);
  const units = (entry: Record<string, unknown>) => writeUnits(itemSize(entry));
  if (old === undefined && next === undefined) return [];
  if (old === undefined && next !== undefined) {
    return [{ kind: 'put', partition: partitionOf(next, shape), units: units(next) }];
  }
  if (old !== undefined && next === undefined) {
    return [{ kind: 'delete', partition: partitionOf(old, shape), units: units(old) }];
  }
  const o = old as Record<string, unknown>;
  const n = next as Record<string, unknown>;
  if (keyOf(o, shape) !== keyOf(n, shape)) {
    return [
      { kind: 'delete', partition: partitionOf(o, shape), units: units(o) },
      { kind: 'put', partition: partitionOf(n, shape), units: units(n) },
    ];
  }
  if (canonical(o) === canonical(n)) return [];
  return [
    {
      kind: 'update',
      partition: partitionOf(n, shape),
      units: Math.max(units(o), units(n)),
    },
  ];
}

/** Table write units of a write: one per started KB of the larger image (at least one). */
export function tableWriteUnits(before: Image, after: Image): number {
  return writeUnits(Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0));
}

/** The status of an index partition key value `STATUS#shard` (the value itself otherwise). */
export function statusOfPartition(partition: string): string {
  const hash = partition.lastIndexOf('#');
  return hash < 0 ? partition : partition.slice(0, hash);
}
