/**
 * The span wrapper the core puts around a tool call, a script run or an upstream request when a
 * {@link CallTracer} is set (see `./tracing.ts`): the span is a child of the `traceparent` the
 * call carries in `_meta`, and what runs inside gets the span's own `traceparent` there, so an
 * upstream request or a script's calls carry it on.
 */
import { messageOf } from "../shared/errors.ts";
import { type CallAnswer, isErrorAnswer } from "./call-records.ts";
import { type CallTracer, type SpanKind, traceparentOf } from "./tracing.ts";
import type { CallContext } from "./types.ts";
import { childContext } from "./call-context.ts";

/** Runs `run` inside a span of `tracer`; the span ends with the call's outcome. */
export async function traced<T extends CallAnswer>(
  tracer: CallTracer,
  kind: SpanKind,
  spanName: string,
  attributes: Record<string, string>,
  options: CallContext,
  run: (inner: CallContext) => Promise<T>,
): Promise<T> {
  const span = tracer.start(kind, spanName, attributes, traceparentOf(options.meta));
  const inner = childContext(options, {
    meta: { ...options.meta, traceparent: span.traceparent },
  });
  try {
    const result = await run(inner);
    span.end(isErrorAnswer(result) ? "tool_error" : "ok");
    return result;
  } catch (err) {
    span.end("error", messageOf(err));
    throw err;
  }
}
