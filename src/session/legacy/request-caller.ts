/**
 * @module Who a request on a 2025 session is judged as: the token that presented that request,
 * not the one that opened the session. An OAuth subject may present several access tokens on one
 * session (a refresh, a narrower token for one task), each with its own scopes; every request —
 * each item of a batch too — reaches only what its own token's scopes allow. The HTTP layer hands
 * the request's caller to the SDK transport as `authInfo`, which the SDK passes to every handler
 * of every message of that request untouched. A request that carries none (the `--stdio` door,
 * which has one caller for its whole life) is judged as the session's standing caller.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Caller } from "../../gateway/types.ts";

/** The `authInfo` that carries `caller` to the handlers of one request's messages. */
export function authInfoOf(caller: Caller): AuthInfo {
  return { token: "", clientId: caller.tokenName ?? "", scopes: [], extra: { caller } };
}

/** The caller a handler judges its request as: the request's own, else `standing()`. */
export function callerOfRequest(
  extra: { authInfo?: AuthInfo | undefined },
  standing: () => Caller,
): Caller {
  return (extra.authInfo?.extra?.caller as Caller | undefined) ?? standing();
}
