/**
 * OpenTelemetry tracing, through `@opentelemetry/api` as an optional peer dependency: no
 * tracer, no cost. The API keeps what an app registers (its tracer provider, context manager
 * and propagators) in one registry on `globalThis`, shared by every copy of the package, so
 * whether a tracer provider is registered can be read without loading anything. Tasklane
 * loads the API only when one is, on first use (docs/tracing.md,
 * docs/adr/0050-progress-within-a-second-and-traced-attempts.md).
 *
 * The few parts of the API used here are described by the structural types below, so no
 * type of Tasklane names the optional package.
 */

/**
 * Whether Tasklane traces: `'auto'` when the app has registered an OpenTelemetry tracer
 * provider (loading `@opentelemetry/api` then, and only then), `true` to load the API
 * whenever it is installed, `false` never.
 */
export type TracingOption = boolean | 'auto';

import type { TraceparentContext } from '../core/traceparent.js';

/** The key of the API's global registry (`@opentelemetry/api` 1.x). */
const REGISTRY = Symbol.for('opentelemetry.js.api.1');

/** A span's identity, as the API's `SpanContext`. */
export type OtelSpanContext = TraceparentContext;

/** The API's attribute values that Tasklane sets. */
export type OtelAttributes = Readonly<Record<string, string | number | boolean>>;

/** The parts of the API's `Span` that Tasklane calls. */
export interface OtelSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: { name: string; message: string } | Error): void;
  end(): void;
}

/** The parts of `@opentelemetry/api` that Tasklane calls. */
export interface OtelApi {
  readonly trace: {
    getTracer(
      name: string,
      version?: string,
    ): {
      startSpan(
        name: string,
        options?: {
          kind?: number;
          links?: { context: OtelSpanContext }[];
          attributes?: OtelAttributes;
        },
        context?: unknown,
      ): OtelSpan;
    };
    getSpanContext(context: unknown): OtelSpanContext | undefined;
    setSpan(context: unknown, span: OtelSpan): unknown;
    isSpanContextValid(spanContext: OtelSpanContext): boolean;
  };
  readonly context: {
    active(): unknown;
    with<R>(context: unknown, fn: () => R): R;
  };
  readonly SpanKind: { readonly CONSUMER: number; readonly INTERNAL: number };
  readonly SpanStatusCode: { readonly ERROR: number };
}

let loading: Promise<OtelApi | undefined> | undefined;

/** The issue with a `tracing` option that is not a {@link TracingOption}, if it is not one. */
export function tracingOptionIssue(
  value: unknown,
  path = 'tracing',
): { path: string; message: string } | undefined {
  if (value === undefined || value === true || value === false || value === 'auto')
    return undefined;
  const received = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
  return { path, message: `expected true, false or 'auto', received ${received}` };
}

/**
 * The OpenTelemetry API when `option` asks for tracing: with `'auto'`, only once a tracer
 * provider is registered. Undefined, at once and without loading anything, otherwise; a
 * promise of undefined when the package is not installed.
 */
export function tracingApi(
  option: TracingOption = 'auto',
): Promise<OtelApi | undefined> | undefined {
  if (option === false) return undefined;
  if (option === 'auto' && !tracerRegistered()) return undefined;
  loading ??= import('@opentelemetry/api').then(
    (api) => api as unknown as OtelApi,
    () => undefined,
  );
  return loading;
}

/** Whether an app registered a tracer provider with `@opentelemetry/api` 1.x, any copy of it. */
export function tracerRegistered(): boolean {
  const registry = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[REGISTRY];
  return registry?.trace !== undefined;
}

/**
 * The active span's W3C `traceparent`, as the producer stores it with a task; undefined
 * without a valid active span.
 */
export function activeTraceparent(api: OtelApi): string | undefined {
  const span = api.trace.getSpanContext(api.context.active());
  if (span === undefined || !api.trace.isSpanContextValid(span)) return undefined;
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${span.traceId}-${span.spanId}-${flags}`;
}
