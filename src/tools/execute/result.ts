/**
 * Assembles the `execute` tool result (its output schema is in `description.ts`):
 * `structuredContent = { result, emitted, output, calls, stats }`; `content` = one text block
 * holding that same object as JSON — the MCP spec's backward-compatible text form of structured
 * content, which clients (MCP Inspector) check against it — followed by the pictures. A
 * failure is an `isError` result with the message, the Lua line and the trace so far.
 */
import { extractPictures } from "../../media/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import type { LimitName, ScriptOutcome, ToolResult } from "../../scripting/mod.ts";
import type { TraceEntry } from "./trace.ts";

/** Totals of one run. */
export interface ExecuteStats {
  elapsed_ms: number;
  /** UTF-8 JSON bytes of the data returned into the script (the transfer budget's measure). */
  bytes_transferred: number;
  /** Operations in the trace (search, describe and call). */
  operations: number;
  /** Operations past the trace's ceiling, counted but not listed. */
  operations_dropped?: number;
  /** The time limit the run had, after clamping `timeout_ms` to the configured ceiling. */
  timeout_ms: number;
}

/** What a failed run reports besides the trace. */
export interface ExecuteFailure {
  message: string;
  line?: number;
  limit?: LimitName | "pictures";
}

/** Builds the tool result of a finished run. */
export function executeResult(
  outcome: ScriptOutcome,
  calls: TraceEntry[],
  stats: ExecuteStats,
  maxPictures: number,
): ToolResult {
  if (!outcome.ok) {
    const failure: ExecuteFailure = { message: outcome.message };
    if (outcome.line !== undefined && outcome.chunk === "script") failure.line = outcome.line;
    if (outcome.limit) failure.limit = outcome.limit;
    return failureResult(failure, outcome, calls, stats, maxPictures);
  }
  let lifted;
  try {
    // The returned value's pictures are numbered first, then the emitted values' (in order).
    lifted = extractPictures([outcome.value ?? null, outcome.emitted], { maxPictures });
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    return failureResult(
      { message: err.message, limit: "pictures" },
      outcome,
      calls,
      stats,
      maxPictures,
    );
  }
  const [result, emitted] = lifted.json as [unknown, unknown[]];
  const structured = { result, emitted, output: outcome.output, calls, stats };
  return {
    content: [
      { type: "text", text: JSON.stringify(structured) },
      ...(lifted.images as unknown as Array<{ type: string; [key: string]: unknown }>),
    ],
    structuredContent: structured,
  };
}

/** `script:3: boom` style heading of a failure. */
export function failureHeading(failure: ExecuteFailure): string {
  return failure.line === undefined
    ? failure.message
    : `${failure.message} (script line ${failure.line})`;
}

function failureResult(
  failure: ExecuteFailure,
  outcome: ScriptOutcome,
  calls: TraceEntry[],
  stats: ExecuteStats,
  maxPictures: number,
): ToolResult {
  // Pictures emitted before the failure still reach the caller when they fit the ceiling.
  let emitted: unknown = outcome.emitted;
  let images: Array<{ type: string; [key: string]: unknown }> = [];
  try {
    const lifted = extractPictures(outcome.emitted, { maxPictures });
    emitted = lifted.json;
    images = lifted.images as unknown as typeof images;
  } catch {
    emitted = outcome.emitted.map(() => "(omitted: too many pictures)");
  }
  // `result: null` keeps the shape of the output schema, which clients check on errors too.
  const body = { result: null, error: failure, emitted, output: outcome.output, calls, stats };
  return {
    content: [
      { type: "text", text: `${failureHeading(failure)}\n${JSON.stringify(body)}` },
      ...images,
    ],
    structuredContent: body,
    isError: true,
  };
}
