/**
 * DynamoDB item sizes and the capacity units a request consumes, following AWS's published
 * rules (DynamoDB Developer Guide, "Item sizes and formats" and "Read/write capacity mode"):
 *
 * - an item's size is the sum of its attribute names' and values' sizes;
 * - a string or binary is its length in bytes (UTF-8 for strings); a number is about one
 *   byte per two significant digits, plus one; a boolean or null is one byte;
 * - a list or map costs 3 bytes plus one byte per element, plus its elements (and, for a
 *   map, the element names);
 * - a write consumes one write unit per started KB of the larger of the item's old and new
 *   image; a strongly consistent read, one read unit per started 4 KB (half for eventual
 *   consistency).
 *
 * Items arrive either in the wire format (`{ S: 'x' }`) or as plain values (the document
 * client's view); both are measured.
 */

const TYPE_KEYS = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);

/** True when every attribute of the item is a wire-format AttributeValue. */
export function isWireItem(item: Record<string, unknown>): boolean {
  const values = Object.values(item);
  return values.length > 0 && values.every(isAttributeValue);
}

function isAttributeValue(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && TYPE_KEYS.has(keys[0] as string);
}

function utf8(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Size of a number: one byte per two significant digits, plus one. */
export function numberSize(text: string): number {
  const digits = text
    .replace(/^-/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '');
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, significant.length) / 2) + 1;
}

function wireValueSize(value: Record<string, unknown>): number {
  const [type, inner] = Object.entries(value)[0] as [string, unknown];
  switch (type) {
    case 'S':
      return utf8(String(inner));
    case 'N':
      return numberSize(String(inner));
    case 'B':
      return (inner as Uint8Array).length;
    case 'BOOL':
    case 'NULL':
      return 1;
    case 'SS':
      return (inner as string[]).reduce((sum, s) => sum + utf8(s), 0);
    case 'NS':
      return (inner as string[]).reduce((sum, s) => sum + numberSize(s), 0);
    case 'BS':
      return (inner as Uint8Array[]).reduce((sum, b) => sum + b.length, 0);
    case 'L':
      return (inner as Record<string, unknown>[]).reduce(
        (sum, element) => sum + 1 + wireValueSize(element),
        3,
      );
    default:
      return Object.entries(inner as Record<string, Record<string, unknown>>).reduce(
        (sum, [name, element]) => sum + utf8(name) + 1 + wireValueSize(element),
        3,
      );
  }
}

function plainValueSize(value: unknown): number {
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(String(value));
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (value instanceof Uint8Array) return value.length;
  if (value instanceof Set) return [...value].reduce((sum, v) => sum + plainValueSize(v), 0);
  if (Array.isArray(value)) return value.reduce((sum, v) => sum + 1 + plainValueSize(v), 3);
  return Object.entries(value as Record<string, unknown>).reduce(
    (sum, [name, v]) => sum + utf8(name) + 1 + plainValueSize(v),
    3,
  );
}

/** The item's size in bytes, in either representation. */
export function itemSize(item: Record<string, unknown>): number {
  const wire = isWireItem(item);
  return Object.entries(item).reduce(
    (sum, [name, value]) =>
      sum +
      utf8(name) +
      (wire ? wireValueSize(value as Record<string, unknown>) : plainValueSize(value)),
    0,
  );
}

/** Write units of one write of an item this large (at least one). */
export function writeUnits(sizeBytes: number): number {
  return Math.max(1, Math.ceil(sizeBytes / 1024));
}

/** Read units of one read of an item this large (at least one, halved when eventual). */
export function readUnits(sizeBytes: number, consistent: boolean): number {
  const units = Math.max(1, Math.ceil(sizeBytes / 4096));
  return consistent ? units : units / 2;
}
