/**
 * The core's tracing seam. The gateway asks a {@link CallTracer} for a span around every tool
 * call, script run and upstream request, and hands each span's W3C `traceparent` to what runs
 * inside it (the upstream request's `_meta`, the tool calls a script makes). The core knows
 * nothing of OpenTelemetry: `ops/traces/` supplies a tracer when `gateway.telemetry` is set;
 * without one the gateway does no tracing work at all (one null check per call).
 */

/** What a span covers. */
export type SpanKind = "tool" | "script" | "upstream";

/** How a traced operation ended. */
export type SpanOutcome = "ok" | "tool_error" | "error";

/** Attribute values a span carries (never arguments, results or token values). */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** One open span. */
export interface TraceSpan {
  /** This span's W3C `traceparent`, for whatever runs inside it. */
  readonly traceparent: string;
  /** Ends the span once; later calls are ignored. */
  end(outcome: SpanOutcome, error?: string): void;
}

/** Starts spans; `parent` is a W3C `traceparent` (a client's, or an enclosing span's). */
export interface CallTracer {
  start(
    kind: SpanKind,
    name: string,
    attributes: SpanAttributes,
    parent: string | undefined,
  ): TraceSpan;
  /** Sends what is buffered and stops (gateway stop). */
  shutdown(): Promise<void>;
}

/** The `traceparent` carried in a request's `_meta`, if it is a string. */
export function traceparentOf(meta: Record<string, unknown> | undefined): string | undefined {
  const value = meta?.traceparent;
  return typeof value === "string" ? value : undefined;
}
