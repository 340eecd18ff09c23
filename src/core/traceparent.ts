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

/** What a valid `traceparent` looks like, for the reasons given. */
const EXPECTED =
  'expected a W3C traceparent, 00-<32 lower-case hex trace id>-<16 lower-case hex span id>-<2 hex flags>, with non-zero ids';

/** The span a `traceparent` names, shaped as OpenTelemetry's `SpanContext`. */
export interface TraceparentContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean;
}

/** Why `value` is not a valid version-00 `traceparent`; undefined when it is one. */
export function traceparentIssue(value: unknown): string | undefined {
  if (typeof value !== 'string') return `${EXPECTED}, received ${typeof value}`;
  const match = TRACEPARENT.exec(value);
  const received = JSON.stringify(value.slice(0, 64));
  if (match === null) return `${EXPECTED}, received ${received}`;
  const [, traceId = '', spanId = ''] = match;
  if (/^0+$/.test(traceId)) return `${EXPECTED}, received an all-zero trace id in ${received}`;
  if (/^0+$/.test(spanId)) return `${EXPECTED}, received an all-zero span id in ${received}`;
  return undefined;
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
