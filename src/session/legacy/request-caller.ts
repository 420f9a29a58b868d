/**
 * @module Who a request on a 2025 session is judged as: the token that presented that request,
 * not the one that opened the session. An OAuth subject may present several access tokens on one
 * session (a refresh, a narrower token for one task), each with its own scopes; every request —
 * each item of a batch too — reaches only what its own token's scopes allow. The HTTP layer hands
 * the SDK transport one `authInfo` object per request, which the SDK passes to every handler of
 * every message of that request by reference; the request's caller is that object's private
 * field (`../caller-auth.ts`; nothing rides in `authInfo.extra`). A request that carries none (the `--stdio` door,
 * which has one caller for its whole life) is judged as the session's standing caller.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Caller } from "../../gateway/types.ts";
import { CallerAuth } from "../caller-auth.ts";

/** The caller a handler judges its request as: the request's own, else `standing()`. */
export function callerOfRequest(
  extra: { authInfo?: AuthInfo | undefined },
  standing: () => Caller,
): Caller {
  return CallerAuth.callerOf(extra.authInfo) ?? standing();
}
