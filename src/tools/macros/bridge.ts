/**
 * The macros' one bridge to the gateway: a {@link ToolBridge} that calls tools as a given caller,
 * so token scopes apply inside scripts exactly as they do to direct calls. Macros see results as
 * a direct caller does (an outage is an `isError` result naming the server).
 */
import type { ToolBridge } from "../../scripting/mod.ts";
import { type CallContext, type Caller, enterCall, type Gateway } from "../../gateway/mod.ts";

/** Options for {@link bridgeFor}. */
export interface BridgeOptions {
  /**
   * True for operator-written macros: hidden tools are reachable. False for agent-written
   * scripts: they reach exactly what their caller could call directly.
   */
  internal: boolean;
  /** The downstream call the script serves; its session receives sampling/roots requests. */
  parent?: CallContext;
}

/** A bridge calling tools through `gateway` as `caller`. */
export function bridgeFor(gateway: Gateway, caller: Caller, options: BridgeOptions): ToolBridge {
  const { internal, parent } = options;
  return {
    callTool: (name, args, ctx) =>
      gateway.callTool(
        name,
        args,
        caller,
        enterCall({ signal: ctx.signal, internal, parent: parent ?? {} }),
      ),
    listTools: () => gateway.callableNames(caller, internal),
  };
}
