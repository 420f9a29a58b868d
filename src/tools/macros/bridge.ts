/**
 * The macros' one bridge to the gateway: a {@link ToolBridge} that calls tools as the caller of
 * the call the macro serves, so token scopes apply inside scripts exactly as they do to direct
 * calls. Macros see results as
 * a direct caller does (an outage is an `isError` result naming the server).
 */
import type { ToolBridge } from "../../scripting/mod.ts";
import { type CallContext, enterCall, type Gateway } from "../../gateway/mod.ts";

/** Options for {@link bridgeFor}. */
export interface BridgeOptions {
  /**
   * True for operator-written macros: hidden tools are reachable. False for agent-written
   * scripts: they reach exactly what their caller could call directly.
   */
  internal: boolean;
  /**
   * The downstream call the script serves: its caller makes the script's calls, its session
   * receives sampling/roots requests.
   */
  parent: CallContext;
}

/** A bridge calling tools through `gateway` as the caller of `options.parent`. */
export function bridgeFor(gateway: Gateway, options: BridgeOptions): ToolBridge {
  const { internal, parent } = options;
  const caller = parent.caller;
  return {
    callTool: (name, args, ctx) =>
      gateway.callTool(name, args, enterCall(caller, { signal: ctx.signal, internal, parent })),
    listTools: () => gateway.callableNames(caller, internal),
  };
}
