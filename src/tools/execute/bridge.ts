/**
 * The parent's side of one `execute` run, and its single bridge to the gateway: the
 * {@link ToolBridge} behind `mcp.call` and the host functions behind `tools.search`,
 * `tools.describe` and `tools.call`, calling `Gateway.calls.callToolOutcome` as the caller, so an
 * upstream outage arrives as its kind and maps to an error code by {@link OUTAGE_CODES}. Every operation lands in the run's {@link CallTrace}, and
 * is finished only once the call broker has charged (or refused) its answer against the run's
 * transfer budget, so the trace shows what the script really received.
 */
import { type CallContext, enterCall, type Gateway } from "../../gateway/mod.ts";
import { suggestNames } from "../../discovery/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import {
  type HostCallContext,
  type HostFunction,
  TOO_LARGE_CODE,
  type ToolBridge,
  type ToolResult,
} from "../../scripting/mod.ts";
import { type CallError, callErrorOf, OUTAGE_CODES } from "./codes.ts";
import { EXECUTE_TOOL_NAME } from "./description.ts";
import type { CallTrace } from "./trace.ts";

/** What an `execute` run reaches of the gateway: calls as the caller, search and describe. */
export interface ExecuteDeps {
  /** The gateway calls go through (`calls.callToolOutcome`: outages come back as data). */
  gateway: Pick<Gateway, "calls" | "callableNames">;
  /**
   * The downstream `execute` call the run serves (its session, request id, nesting depth) and
   * its caller, who runs the script: token scopes apply inside it, hidden tools are unreachable.
   */
  parent: CallContext;
  /**
   * True when the operator runs the script (`mcp-gateway run`): hidden tools are reachable.
   * Agent-written scripts (`execute`) reach exactly what their caller could call directly.
   */
  internal?: boolean;
  /** Ranked search over what the caller may find: `{ items, total, has_more, next_offset? }`. */
  search(args: Record<string, unknown>): Promise<{ items: Array<{ name: string }> } & object>;
  /** Description of one tool; throws `TOOL_NOT_FOUND` (with `data.suggestions`) when unknown. */
  describe(path: string): object;
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
  const { gateway, parent } = deps;
  const caller = parent.caller;
  const internal = deps.internal === true;
  const listTools = () =>
    gateway.callableNames(caller, internal).filter((n) => n !== EXECUTE_TOOL_NAME);
  /** One tool call as an envelope (and the raw result when there is one); never throws. */
  const callTool = async (
    path: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ envelope: CallEnvelope; result?: ToolResult }> => {
    try {
      // A run of execute would wait for a worker its caller may be holding.
      if (path === EXECUTE_TOOL_NAME) {
        throw new GatewayError("FORBIDDEN", "execute cannot be called from inside a script");
      }
      const outcome = await gateway.calls.callToolOutcome(
        path,
        args,
        enterCall(caller, { signal, internal, parent }),
      );
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
        const near = suggestNames(path, listTools());
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
    listTools,
  };

  const hostFunctions: Record<string, HostFunction> = {
    async search(args, ctx) {
      const q = (args ?? {}) as Record<string, unknown>;
      const handle = trace.start("search", { query: String(q.query ?? "") });
      try {
        const found = await deps.search(q);
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
