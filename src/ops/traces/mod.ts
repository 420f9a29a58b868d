/**
 * @module Traces: OpenTelemetry spans for every tool call, script run and upstream request, sent
 * over OTLP/HTTP to `gateway.telemetry.otlp`. Off by default; the SDK is imported only when a
 * config turns telemetry on, so a gateway without it pays nothing.
 */
import type { TelemetryConfig } from "../../config/mod.ts";
import type { CallTracer } from "../../gateway/tracing.ts";

/** Loads the OpenTelemetry SDK and builds a tracer for `config`. */
export async function startTracing(config: TelemetryConfig): Promise<CallTracer> {
  const { createOtelTracer } = await import("./otel.ts");
  return createOtelTracer(config);
}
