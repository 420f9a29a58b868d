/** Shapes shared by the gateway room and the rooms that plug tools into it. */
import type { CallToolResult, Tool } from "../shared/protocol.ts";
import type { GatewayConfig } from "../config/mod.ts";
import type { CallContext } from "../shared/call-context.ts";

export { type Caller, LOCAL_CALLER } from "../shared/caller.ts";
export type { CallContext } from "../shared/call-context.ts";
export type {
  ChannelRequestOptions,
  ClientChannel,
  RequestAnswerer,
} from "../shared/client-channel.ts";

/** A tool served by the gateway itself (meta-tools, macros, execute). */
export interface LocalTool {
  /** The definition as listed; `name` is the exposed name. */
  readonly tool: Tool;
  /** The group it belongs to for search (`macros`, or `null` for meta-tools). */
  readonly server: string | null;
  /** Hidden from `tools/list`, found by search. */
  readonly discoverable: boolean;
  /** Listed even when `exposure: search` (meta-tools, non-discoverable macros). */
  readonly alwaysListed: boolean;
  /** Extra search terms. */
  readonly keywords?: readonly string[];
  /**
   * Whether a caller whose exposure is this one gets the tool at all (absent: always). The
   * meta-tools exist for every caller once one profile needs them, and use it to stay away
   * from endpoints that would not have them otherwise.
   */
  readonly shownWith?: (exposure: "all" | "search") => boolean;
  /** Set for tools that run a Lua script: their runs are traced as script spans. */
  readonly script?: "execute" | "macro";
  /** Where it is defined, for operators (`macros/greet.lua`, `gateway.yaml scripting.tools.x`). */
  readonly origin?: string;
  /** Runs the tool for `options.caller`. */
  call(args: Record<string, unknown>, options: CallContext): Promise<CallToolResult>;
}

/** Supplies local tools; the gateway asks again after {@link Gateway.refreshLocalTools}. */
export interface LocalToolProvider {
  localTools(): readonly LocalTool[];
  /** Told about a new config on reload before tools are re-read; may keep its old tools. */
  applyConfig?(config: GatewayConfig): Promise<void>;
}
