/** Shapes shared by the gateway room and the rooms that plug tools into it. */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayConfig } from "../config/mod.ts";
import type { CallContext } from "../shared/call-context.ts";

/** Who is calling: the session and the token it authenticated with. */
export interface Caller {
  readonly sessionId: string | null;
  /** Token name (never its value); `null` without auth. */
  readonly tokenName: string | null;
  /**
   * The token's tool globs; `null` = every tool. Callers the doors build (`callerOf` in
   * `src/session/door.ts`) read them from the running config at each access, so a reload applies
   * to sessions and scripts already running.
   */
  readonly toolGlobs: readonly string[] | null;
  /**
   * The profile whose endpoint the caller came in on (`/mcp/<profile>`, `--stdio --profile`);
   * `null` = the whole catalog. The gateway reads its definition from the running config at
   * each check (`./profiles.ts`).
   */
  readonly profile: string | null;
  /**
   * The OAuth access token the caller presented, for `oauth: mode: exchange` upstreams only
   * (RFC 8693 subject token): exchanged at the issuer, never sent upstream or logged.
   */
  readonly subjectToken?: string;
}

/** A caller with no session and no restrictions (CLI, tests). */
export const LOCAL_CALLER: Caller = {
  sessionId: null,
  tokenName: null,
  toolGlobs: null,
  profile: null,
};

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
  call(
    args: Record<string, unknown>,
    caller: Caller,
    options: CallContext,
  ): Promise<CallToolResult>;
}

/** Supplies local tools; the gateway asks again after {@link Gateway.refreshLocalTools}. */
export interface LocalToolProvider {
  localTools(): readonly LocalTool[];
  /** Told about a new config on reload before tools are re-read; may keep its old tools. */
  applyConfig?(config: GatewayConfig): Promise<void>;
}
