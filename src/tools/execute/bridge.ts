/**
 * The parent's side of one `execute` run, and its single bridge to the gateway: the
 * {@link ToolBridge} behind `mcp.call` and the host functions behind `tools.search`,
 * `tools.describe` and `tools.call`. Every operation lands in the run's {@link CallTrace}, and
 * is finished only once the call broker has charged (or refused) its answer against the run's
 * transfer budget, so the trace shows what the script really received.
 */
import type { CallOutcome } from "../../gateway/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import {
  type HostCallContext,
  type HostFunction,
  TOO_LARGE_CODE,
  type ToolBridge,
  type ToolResult,
} from "../../scripting/mod.ts";
import { type CallError, callErrorOf, OUTAGE_CODES } from "./codes.ts";
import type { CallTrace } from "./trace.ts";

/** What an `execute` run needs from the gateway, already scoped to the caller. */
export interface ExecuteDeps {
  /** Calls a tool as the caller (hidden tools unreachable, token scopes applied). */
  call(path: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome>;
  /** Every tool name the caller may call. */
  listTools(): string[];
  /** Ranked search over what the caller may find: `{ items, total, has_more, next_offset? }`. */
  search(args: Record<string, unknown>): { items: Array<{ name: string }> } & object;
  /** Description of one tool; throws `TOOL_NOT_FOUND` (with `data.suggestions`) when unknown. */
  describe(path: string): object;
  /** Near names for an unknown tool path. */
  suggest(path: string): string[];
}

/** The `tools.call` answer. */
export type CallEnvelope =
  | { ok: true; data: ToolResult }
  | { ok: false; error: CallError; data?: ToolResult };

/** Text of a result's text blocks, joined by newlines. */
function textOf(result: ToolResult): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  return blocks.filter((b) => b?.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string).join("\n");
}

/** Finishes a trace entry once the broker has delivered or refused the answer. */
function finishOnDelivery(
  trace: CallTrace,
  handle: number,
  ctx: HostCallContext,
  ok: boolean,
  error?: string,
): void {
  ctx.onDelivery((delivered) => {
    if (delivered) trace.finish(handle, ok, ok ? undefined : error);
    else trace.finish(handle, false, TOO_LARGE_CODE);
  });
}

/** Wires one run's bridge and host functions to the gateway and the trace. */
export function runCalls(deps: ExecuteDeps, trace: CallTrace): {
  bridge: ToolBridge;
  hostFunctions: Record<string, HostFunction>;
} {
  /** One tool call as an envelope (and the raw result when there is one); never throws. */
  const callTool = async (
    path: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ envelope: CallEnvelope; result?: ToolResult }> => {
    try {
      const outcome = await deps.call(path, args, signal);
      if (outcome.kind === "outage") {
        const code = signal.aborted ? "cancelled" : OUTAGE_CODES[outcome.outage];
        return { envelope: { ok: false, error: { code, message: outcome.message } } };
      }
      const result = outcome.result as ToolResult;
      if (!result.isError) return { envelope: { ok: true, data: result }, result };
      const message = textOf(result) || "the tool reported an error";
      return {
        envelope: { ok: false, error: { code: "tool_error", message }, data: result },
        result,
      };
    } catch (err) {
      const error = callErrorOf(err, signal.aborted);
      if (error.code === "tool_not_found" && !error.suggestions) {
        const near = deps.suggest(path);
        if (near.length > 0) error.suggestions = near;
      }
      return { envelope: { ok: false, error } };
    }
  };

  const bridge: ToolBridge = {
    // mcp.call: the script sees the raw result, or an error reply carrying the call code.
    async callTool(name, args, ctx) {
      const handle = trace.start("call", { path: name });
      const { envelope, result } = await callTool(name, args, ctx.signal);
      if (!result) {
        const error = envelope.ok ? undefined : envelope.error;
        trace.finish(handle, false, error?.code);
        throw new GatewayError("UPSTREAM_ERROR", error?.message ?? "", {
          data: { code: error?.code },
        });
      }
      finishOnDelivery(trace, handle, ctx, envelope.ok, envelope.ok ? undefined : "tool_error");
      return result;
    },
    listTools: () => deps.listTools(),
  };

  const hostFunctions: Record<string, HostFunction> = {
    search(args, ctx) {
      const q = (args ?? {}) as Record<string, unknown>;
      const handle = trace.start("search", { query: String(q.query ?? "") });
      try {
        const found = deps.search(q);
        finishOnDelivery(trace, handle, ctx, true);
        return { ...found, items: found.items.map((i) => ({ path: i.name, ...i })) };
      } catch (err) {
        trace.finish(handle, false, callErrorOf(err).code);
        throw err;
      }
    },
    describe(args, ctx) {
      const path = String((args as { path?: unknown })?.path ?? "");
      const handle = trace.start("describe", { path });
      try {
        const value = { path, ...deps.describe(path) };
        finishOnDelivery(trace, handle, ctx, true);
        return value;
      } catch (err) {
        const error = callErrorOf(err);
        trace.finish(handle, false, error.code);
        if (error.code !== "tool_not_found") throw err;
        return { error };
      }
    },
    async call(args, ctx) {
      const { path, args: toolArgs, json } = (args ?? {}) as {
        path?: unknown;
        args?: unknown;
        json?: unknown;
      };
      const name = String(path ?? "");
      const handle = trace.start("call", { path: name });
      let parsed: unknown = toolArgs ?? {};
      if (typeof json === "string") {
        try {
          parsed = JSON.parse(json);
        } catch (err) {
          parsed = err;
        }
      }
      if (
        parsed instanceof Error || typeof parsed !== "object" || parsed === null ||
        Array.isArray(parsed)
      ) {
        const why = parsed instanceof Error
          ? `is not JSON (${parsed.message})`
          : "is not an object";
        trace.finish(handle, false, "invalid_arguments");
        return {
          ok: false,
          error: { code: "invalid_arguments", message: `tools.call refused: args ${why}` },
        };
      }
      const { envelope } = await callTool(name, parsed as Record<string, unknown>, ctx.signal);
      finishOnDelivery(
        trace,
        handle,
        ctx,
        envelope.ok,
        envelope.ok ? undefined : envelope.error.code,
      );
      return envelope;
    },
    refused(args) {
      const { path, message } = (args ?? {}) as { path?: unknown; message?: unknown };
      trace.finish(trace.start("call", { path: String(path ?? "") }), false, "invalid_arguments");
      return { message: String(message ?? "") };
    },
  };
  return { bridge, hostFunctions };
}
