/**
 * A 2025 session's requests enter the core here: one call context per request, for the
 * request's own caller (`./request-caller.ts`), from the request's `_meta`, the SDK's signal and
 * request id, and the session as the call's client.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { type CallContext, enterCall, type ProgressParams } from "../../gateway/mod.ts";
import type { SessionLink } from "../../gateway/passthrough/mod.ts";
import { callerOfRequest } from "./request-caller.ts";

/** What the SDK hands a session's handler that the call context is made from. */
export interface SessionRequestExtra {
  readonly signal: AbortSignal;
  readonly requestId: string | number;
  readonly authInfo?: AuthInfo | undefined;
}

/**
 * The context of one request of `link` whose params carried `meta`; `progress` relays the
 * request's progress when the client asked for it.
 */
export function enterSessionCall(
  link: SessionLink,
  meta: Record<string, unknown> | undefined,
  extra: SessionRequestExtra,
  progress?: (params: ProgressParams) => void,
): CallContext {
  return enterCall(callerOfRequest(extra, link.caller), {
    meta,
    signal: extra.signal,
    client: link,
    requestId: extra.requestId,
    progress,
  });
}
