/**
 * OpenTelemetry tracing with what the app registered: no tracer, no cost. `@opentelemetry/api`
 * 1.x keeps what an app registers (its tracer provider and context manager) in one registry on
 * `globalThis`, under `Symbol.for('opentelemetry.js.api.1')`, shared by every copy of the
 * package, and keeps a context's span under `Symbol.for('OpenTelemetry Context Key SPAN')`.
 * Tasklane reads that registry and never imports the package: a bundled worker holds none of
 * it (the app's own copy, in the app's bundle, is the one that registered), and a process with
 * no tracer provider does one property read per enqueue or attempt (docs/tracing.md,
 * docs/adr/0050-progress-within-a-second-and-traced-attempts.md).
 *
 * The few parts of the API used here are described by the structural types below, so no
 * type of Tasklane names the optional package.
 */
import {
  formatTraceparent,
  type TraceparentContext,
  traceparentIssue,
} from '../core/traceparent.js';

/**
 * Whether Tasklane traces: `true` (the default) once the app has registered an OpenTelemetry
 * tracer provider with `@opentelemetry/api` 1.x, `false` never.
 */
export type TracingOption = boolean;

/** The registry's key (`@opentelemetry/api` 1.x), shared by every copy of the package. */
const REGISTRY = Symbol.for('opentelemetry.js.api.1');

/** The key under which a context holds its span (the API's `trace.setSpan`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** The API's `SpanKind` and `SpanStatusCode` values used here (fixed by the specification). */
export enum SpanKind {
  INTERNAL = 0,
  CONSUMER = 4,
}
export enum SpanStatusCode {
  ERROR = 2,
}

/** A span's identity, as the API's `SpanContext`. */
export type OtelSpanContext = TraceparentContext;

/** The API's attribute values that Tasklane sets. */
export type OtelAttributes = Readonly<Record<string, string | number | boolean>>;

/** The parts of the API's `Span` that Tasklane calls. */
export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: { name: string; message: string } | Error): void;
  end(): void;
}

/** The parts of the API's `Context` that Tasklane calls. */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
}

/** The parts of the API's `Tracer` that Tasklane calls. */
export interface OtelTracer {
  startSpan(
    name: string,
    options?: {
      kind?: number;
      links?: { context: OtelSpanContext }[];
      attributes?: OtelAttributes;
    },
    context?: OtelContext,
  ): OtelSpan;
}

/** What an app registered, as the registry holds it. */
interface Registry {
  readonly trace?: { getTracer(name: string, version?: string): OtelTracer };
  readonly context?: {
    active(): OtelContext;
    with<R>(context: OtelContext, fn: () => R): R;
  };
}

/** The app's registered tracing, as Tasklane uses it. */
export interface Tracing {
  readonly tracer: OtelTracer;
  /** Runs `fn` with `span` active, so the spans started within are its children. */
  withSpan<R>(span: OtelSpan, fn: () => R): R;
}

/** The issue with a `tracing` option that is not a {@link TracingOption}, if it is not one. */
export function tracingOptionIssue(
  value: unknown,
  path = 'tracing',
): { path: string; message: string } | undefined {
  if (value === undefined || value === true || value === false) return undefined;
  const received = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
  return { path, message: `expected true or false, received ${received}` };
}

function registry(): Registry | undefined {
  return (globalThis as Record<symbol, Registry | undefined>)[REGISTRY];
}

/**
 * The app's tracing when `option` allows it and a tracer provider is registered; undefined,
 * after one property read, otherwise.
 */
export function registeredTracing(option: TracingOption = true): Tracing | undefined {
  if (!option) return undefined;
  const registered = registry();
  const provider = registered?.trace;
  if (provider === undefined) return undefined;
  const contexts = registered?.context;
  return {
    // The instrumentation scope of Tasklane's spans.
    tracer: provider.getTracer('tasklane'),
    // Without a context manager the app propagates no context: spans are started unparented.
    withSpan: (span, fn) =>
      contexts === undefined ? fn() : contexts.with(contexts.active().setValue(SPAN_KEY, span), fn),
  };
}

/**
 * The active span's W3C `traceparent`, as the producer stores it with a task, when `option`
 * allows it and the app has a valid active span; undefined otherwise.
 */
export function activeTraceparent(option: TracingOption = true): string | undefined {
  if (!option) return undefined;
  const registered = registry();
  if (registered?.trace === undefined || registered.context === undefined) return undefined;
  const span = registered.context.active().getValue(SPAN_KEY) as OtelSpan | undefined;
  const identity = span?.spanContext?.();
  if (identity === undefined) return undefined;
  const traceparent = formatTraceparent(identity);
  // An invalid span context (a non-recording span's all-zero ids) is no producer to link to.
  return traceparentIssue(traceparent) === undefined ? traceparent : undefined;
}
