/**
 * W3C Trace Context's `traceparent`: what a producer stores with a task and carries on its
 * message, and how a worker reads it back. Kept apart from the OpenTelemetry glue
 * (src/observability/tracing.ts) so that reading a record needs none of it.
 *
 * A `traceparent` read from a record or a message is untrusted input that decides nothing
 * about the run: one that is not valid is ignored, with the reason {@link traceparentIssue}
 * gives, and only the attempt span's link is lost (docs/tracing.md).
 */

/** W3C Trace Context `traceparent`, version 00: trace id, parent span id, flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span a `traceparent` names, shaped as OpenTelemetry's `SpanContext`. */
export interface TraceparentContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean;
}

/** Why `value` is not a valid version-00 `traceparent`; undefined when it is one. */
export function traceparentIssue(value: unknown): string | undefined {
  const ids = typeof value === 'string' ? TRACEPARENT.exec(value) : null;
  if (ids !== null && !/^0+$/.test(ids[1] ?? '') && !/^0+$/.test(ids[2] ?? '')) return undefined;
  const received = typeof value === 'string' ? JSON.stringify(value.slice(0, 64)) : typeof value;
  return `expected 00-<32 hex>-<16 hex>-<2 hex> in lower case with non-zero ids, received ${received}`;
}

/**
 * The span a `traceparent` names, as a remote span context to link to; undefined for
 * anything that is not a valid version-00 traceparent ({@link traceparentIssue} says why).
 */
export function parseTraceparent(value: unknown): TraceparentContext | undefined {
  if (traceparentIssue(value) !== undefined) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = TRACEPARENT.exec(value as string) ?? [];
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}

/** A `traceparent` value as stored: kept only when it is valid. */
export function validTraceparent(value: unknown): string | undefined {
  return traceparentIssue(value) === undefined ? (value as string) : undefined;
}

/** A span context as a version-00 `traceparent` (not checked: see {@link traceparentIssue}). */
export function formatTraceparent(span: TraceparentContext): string {
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${span.traceId}-${span.spanId}-${flags}`;
}
