/**
 * @module Who a request on a 2025 session is judged as: the token that presented that request,
 * not the one that opened the session. An OAuth subject may present several access tokens on one
 * session (a refresh, a narrower token for one task), each with its own scopes; every request —
 * each item of a batch too — reaches only what its own token's scopes allow. The HTTP layer hands
 * the SDK transport one `authInfo` object per request, which the SDK passes to every handler of
 * every message of that request by reference; the request's caller is found by that object in a
 * weak map, so nothing of the gateway's rides inside the SDK's `authInfo` and the entry goes
 * with the request. A request that carries none (the `--stdio` door, which has one caller for
 * its whole life) is judged as the session's standing caller.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Caller } from "../../gateway/types.ts";

/** The caller of each request in flight, by the `authInfo` object its handlers receive. */
const callers = new WeakMap<AuthInfo, Caller>();

/** A fresh `authInfo` for one request, which its handlers resolve to `caller`. */
export function authInfoOf(caller: Caller): AuthInfo {
  const info: AuthInfo = { token: "", clientId: caller.tokenName ?? "", scopes: [] };
  callers.set(info, caller);
  return info;
}

/** The caller a handler judges its request as: the request's own, else `standing()`. */
export function callerOfRequest(
  extra: { authInfo?: AuthInfo | undefined },
  standing: () => Caller,
): Caller {
  const info = extra.authInfo;
  return (info && callers.get(info)) ?? standing();
}
