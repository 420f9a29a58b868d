/**
 * The OpenTelemetry side of tracing: a {@link CallTracer} backed by the OpenTelemetry SDK, batching
 * spans to an OTLP/HTTP receiver. Loaded only when `gateway.telemetry` is set (see `./mod.ts`), so a
 * gateway without telemetry never loads these packages.
 */
import {
  type Attributes,
  type Context,
  context as contextApi,
  ROOT_CONTEXT,
  type Span,
  SpanKind as OtelKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { TelemetryConfig } from "../../config/mod.ts";
import type { CallTracer, SpanKind, SpanOutcome, TraceSpan } from "../../gateway/tracing.ts";
import { VERSION } from "../../version.ts";

const propagator = new W3CTraceContextPropagator();

const getter = {
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
  get: (carrier: Record<string, string>, key: string) => carrier[key],
};
const setter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

/** OTel span kinds: a tool call is served (SERVER), an upstream request is made (CLIENT). */
const KINDS: Record<SpanKind, OtelKind> = {
  tool: OtelKind.SERVER,
  script: OtelKind.INTERNAL,
  upstream: OtelKind.CLIENT,
};

/** Builds the SDK pipeline for `config` and returns the tracer the gateway uses. */
export function createOtelTracer(config: TelemetryConfig): CallTracer {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": config.serviceName,
      "service.version": VERSION,
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: config.otlp, headers: { ...config.headers } }),
        scheduledDelayMillis: config.flushMs,
      }),
    ],
  });
  const tracer = provider.getTracer("mcp-gateway", VERSION);
  return {
    start(kind, name, attributes, parent) {
      const ctx = parentContext(parent);
      const span = tracer.startSpan(
        name,
        { kind: KINDS[kind], attributes: attributes as Attributes },
        ctx,
      );
      return new OtelSpan(span, trace.setSpan(ctx, span));
    },
    async shutdown() {
      await provider.shutdown();
    },
  };
}

/** The context a `traceparent` names; the root context when there is none or it is malformed. */
function parentContext(traceparent: string | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, { traceparent }, getter);
}

class OtelSpan implements TraceSpan {
  readonly traceparent: string;
  #span: Span;
  #ended = false;

  constructor(span: Span, ctx: Context) {
    this.#span = span;
    const carrier: Record<string, string> = {};
    contextApi.with(ctx, () => propagator.inject(ctx, carrier, setter));
    this.traceparent = carrier.traceparent ?? "";
  }

  end(outcome: SpanOutcome, error?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#span.setAttribute("mcp.outcome", outcome);
    if (outcome === "ok") this.#span.setStatus({ code: SpanStatusCode.OK });
    else this.#span.setStatus({ code: SpanStatusCode.ERROR, ...(error ? { message: error } : {}) });
    this.#span.end();
  }
}
