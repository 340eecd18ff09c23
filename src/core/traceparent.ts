/**
 * W3C Trace Context's `traceparent`: what a producer stores with a task and carries on its
 * message, and how a worker reads it back. Kept apart from the OpenTelemetry glue
 * (src/observability/tracing.ts) so that reading a record never loads it.
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

/**
 * The span a `traceparent` names, as a remote span context to link to; undefined for
 * anything that is not a version-00 traceparent with non-zero ids (a record or a message is
 * untrusted input: a bad value only loses the link).
 */
export function parseTraceparent(value: unknown): TraceparentContext | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}

/** A `traceparent` value as stored: kept only when it parses. */
export function validTraceparent(value: unknown): string | undefined {
  return parseTraceparent(value) === undefined ? undefined : (value as string);
}
