/**
 * The seam between scripts and the gateway: a {@link ToolBridge} that calls tools as a given
 * caller, so token scopes apply inside scripts exactly as they do to direct calls.
 */
import type { ToolBridge } from "../../scripting/mod.ts";
import type { Gateway } from "../gateway.ts";
import type { Caller, CallOptions } from "../types.ts";

/** Options for {@link bridgeFor}. */
export interface BridgeOptions {
  /**
   * True for operator-written macros: hidden tools are reachable. False for agent-written
   * scripts (`execute`): they reach exactly what their caller could call directly.
   */
  internal: boolean;
  /** The downstream call the script serves; its session receives sampling/roots requests. */
  parent?: CallOptions;
  /** Called after each tool call a script makes (traces, metrics). */
  onCall?: (name: string, ms: number, outcome: "ok" | "tool_error" | "error") => void;
}

/** A bridge calling tools through `gateway` as `caller`. */
export function bridgeFor(gateway: Gateway, caller: Caller, options: BridgeOptions): ToolBridge {
  const { internal, parent, onCall } = options;
  return {
    async callTool(name, args, signal) {
      const started = performance.now();
      try {
        const result = await gateway.callTool(name, args, caller, {
          signal,
          internal,
          ...(parent?.session ? { session: parent.session } : {}),
          ...(parent?.requestId !== undefined ? { requestId: parent.requestId } : {}),
          // The script's span is the parent of the calls it makes (when tracing is on).
          ...(parent?.meta?.traceparent ? { meta: { traceparent: parent.meta.traceparent } } : {}),
        });
        onCall?.(name, performance.now() - started, result.isError ? "tool_error" : "ok");
        return result;
      } catch (err) {
        onCall?.(name, performance.now() - started, "error");
        throw err;
      }
    },
    listTools: () => gateway.callableNames(caller, internal),
  };
}
