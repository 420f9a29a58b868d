/**
 * The parent's side of one `execute` run: a traced, budgeted {@link ToolBridge} for `mcp.call`
 * and the host functions behind `tools.search`, `tools.describe` and `tools.call`. Every
 * operation lands in the run's {@link CallTrace}; every value delivered into the script is
 * charged to its {@link TransferBudget} first (the runtime's own check then never trips first:
 * it measures the same values in UTF-16 units, never more than their UTF-8 bytes).
 */
import { GatewayError } from "../../shared/errors.ts";
import type { HostCallContext, HostFunction, ToolBridge, ToolResult } from "../types.ts";
import { type CallError, type CallErrorCode, callErrorOf } from "./codes.ts";
import { type CallTrace, jsonBytes, type TransferBudget } from "./trace.ts";

/** What an `execute` run needs from the gateway, already scoped to the caller. */
export interface ExecuteDeps {
  /** Calls tools as the caller (hidden tools unreachable, token scopes applied). */
  bridge: ToolBridge;
  /** Ranked search over what the caller may find: `{ items, total, has_more, next_offset? }`. */
  search(args: Record<string, unknown>): { items: Array<{ name: string }> } & object;
  /** Description of one tool; throws `TOOL_NOT_FOUND` (with `data.suggestions`) when unknown. */
  describe(path: string): object;
  /** Near names for an unknown tool path. */
  suggest(path: string): string[];
  /**
   * Code of an `isError` result the gateway made itself for an outage (`upstream_error`,
   * `timeout`); `undefined` for a tool's own error result.
   */
  outageCode?(path: string, result: ToolResult): CallErrorCode | undefined;
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

/** Wires one run's bridge and host functions to its trace and budget. */
export function runCalls(deps: ExecuteDeps, trace: CallTrace, budget: TransferBudget): {
  bridge: ToolBridge;
  hostFunctions: Record<string, HostFunction>;
} {
  /** One tool call, classified; never throws. */
  const callTool = async (
    path: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ envelope: CallEnvelope; result?: ToolResult }> => {
    try {
      const result = await deps.bridge.callTool(path, args, signal);
      if (!result.isError) return { envelope: { ok: true, data: result }, result };
      const code = deps.outageCode?.(path, result) ?? "tool_error";
      const message = textOf(result) || "the tool reported an error";
      return { envelope: { ok: false, error: { code, message }, data: result }, result };
    } catch (err) {
      const error = callErrorOf(err, signal.aborted);
      if (error.code === "tool_not_found" && !error.suggestions) {
        const near = deps.suggest(path);
        if (near.length > 0) error.suggestions = near;
      }
      return { envelope: { ok: false, error } };
    }
  };

  /** Charges a delivered value; the one that would pass the budget is replaced by a refusal. */
  const deliver = (envelope: CallEnvelope): CallEnvelope => {
    const bytes = jsonBytes(envelope);
    if (budget.take(bytes)) return envelope;
    const refusal: CallEnvelope = {
      ok: false,
      error: { code: "intermediate_result_too_large", message: budget.refusal(bytes) },
    };
    budget.take(jsonBytes(refusal));
    return refusal;
  };

  const bridge: ToolBridge = {
    // mcp.call: the script sees the raw result (or an error reply), traced and charged.
    async callTool(name, args, signal) {
      const handle = trace.start("call", { path: name });
      const { envelope, result } = await callTool(name, args, signal);
      if (!result) {
        trace.finish(handle, false, envelope.ok ? undefined : envelope.error.code);
        throw new GatewayError("UPSTREAM_ERROR", envelope.ok ? "" : envelope.error.message, {
          data: { code: envelope.ok ? undefined : envelope.error.code },
        });
      }
      const bytes = jsonBytes(result);
      if (!budget.take(bytes)) {
        trace.finish(handle, false, "intermediate_result_too_large");
        throw new GatewayError("TOO_LARGE", budget.refusal(bytes), {
          data: { code: "intermediate_result_too_large" },
        });
      }
      trace.finish(handle, envelope.ok, envelope.ok ? undefined : envelope.error.code);
      return result;
    },
    listTools() {
      const names = deps.bridge.listTools();
      budget.take(jsonBytes(names));
      return names;
    },
  };

  const hostFunctions: Record<string, HostFunction> = {
    search(args) {
      const q = (args ?? {}) as Record<string, unknown>;
      const handle = trace.start("search", { query: String(q.query ?? "") });
      try {
        const found = deps.search(q);
        const value = { ...found, items: found.items.map((i) => ({ path: i.name, ...i })) };
        const bytes = jsonBytes(value);
        if (!budget.take(bytes)) {
          throw new GatewayError("TOO_LARGE", budget.refusal(bytes));
        }
        trace.finish(handle, true);
        return value;
      } catch (err) {
        trace.finish(handle, false, callErrorOf(err).code);
        throw err;
      }
    },
    describe(args) {
      const path = String((args as { path?: unknown })?.path ?? "");
      const handle = trace.start("describe", { path });
      let value: object;
      try {
        value = { path, ...deps.describe(path) };
        trace.finish(handle, true);
      } catch (err) {
        const error = callErrorOf(err);
        trace.finish(handle, false, error.code);
        if (error.code !== "tool_not_found") throw err;
        value = { error };
      }
      if (!budget.take(jsonBytes(value))) {
        throw new GatewayError("TOO_LARGE", budget.refusal(jsonBytes(value)));
      }
      return value;
    },
    async call(args, ctx: HostCallContext) {
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
      let envelope: CallEnvelope;
      if (
        parsed instanceof Error || typeof parsed !== "object" || parsed === null ||
        Array.isArray(parsed)
      ) {
        const why = parsed instanceof Error
          ? `is not JSON (${parsed.message})`
          : "is not an object";
        envelope = {
          ok: false,
          error: { code: "invalid_arguments", message: `tools.call refused: args ${why}` },
        };
      } else {
        envelope = deliver(
          (await callTool(name, parsed as Record<string, unknown>, ctx.signal)).envelope,
        );
      }
      trace.finish(handle, envelope.ok, envelope.ok ? undefined : envelope.error.code);
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
