/**
 * A payload's canonical form and hash (docs/design.md): JSON with object keys sorted, so that
 * equal values hash equally, and a bound on nesting checked without recursion.
 */
import { createHash } from 'node:crypto';

/**
 * Deepest nesting of arrays and objects a payload may have. JSON.stringify recurses once
 * per level and overflows the stack at a few thousand, so a deeper value is refused before
 * it is serialised; real payloads stay far below this. (docs/security.md)
 */
export const MAX_PAYLOAD_DEPTH = 64;

/**
 * Serializes a value to JSON with object keys sorted, so equal values hash equally.
 *
 * The value is first walked iteratively (no recursion, whatever its shape) to bound its
 * depth and find cycles; only then does JSON.stringify, whose recursion is now bounded by
 * {@link MAX_PAYLOAD_DEPTH}, serialise it.
 *
 * @throws RangeError for a value nested deeper than {@link MAX_PAYLOAD_DEPTH}.
 * @throws TypeError for a cyclic value or a BigInt, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  assertBoundedDepth(value);
  // A plain pass first: the sorting replacer returns fresh objects, which hides cycles
  // from JSON.stringify's own detection and turns them into a stack overflow.
  JSON.stringify(value);
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      // A null-prototype object: assigning an own "__proto__" key to a plain object would set
      // its prototype instead, and the key would silently vanish from the payload.
      const sorted: Record<string, unknown> = Object.create(null);
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  });
}

/**
 * Walks a value as JSON.stringify would see it (after `toJSON`), depth-first with an
 * explicit stack, and throws once it nests deeper than the cap or refers back to itself.
 */
function assertBoundedDepth(root: unknown): void {
  const onPath = new Set<object>();
  const stack: { node: object; children: unknown[]; next: number }[] = [];
  const enter = (raw: unknown, key: string): void => {
    const value = jsonView(raw, key);
    if (value === null || typeof value !== 'object') return;
    if (onPath.has(value)) throw new TypeError('Converting circular structure to JSON');
    if (stack.length >= MAX_PAYLOAD_DEPTH) {
      throw new RangeError(`nested deeper than ${MAX_PAYLOAD_DEPTH} levels of arrays and objects`);
    }
    onPath.add(value);
    const children = Array.isArray(value)
      ? [...value]
      : Object.keys(value).map((k) => (value as Record<string, unknown>)[k]);
    stack.push({ node: value, children, next: 0 });
  };
  enter(root, '');
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as (typeof stack)[number];
    if (frame.next < frame.children.length) {
      enter(frame.children[frame.next], String(frame.next));
      frame.next++;
    } else {
      onPath.delete(frame.node);
      stack.pop();
    }
  }
}

/** What JSON.stringify serialises in place of `value`: the result of its `toJSON`, if any. */
function jsonView(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return toJSON.call(value, key);
  }
  return value;
}

/** Hash identifying a (type, payload) pair for idempotency checks. */
export function payloadHash(type: string, payloadJson: string): string {
  return createHash('sha256').update(type).update('\0').update(payloadJson).digest('hex');
}
