/**
 * @module Who a request on a 2025 session is judged as: the token that presented that request,
 * not the one that opened the session. An OAuth subject may present several access tokens on one
 * session (a refresh, a narrower token for one task), each with its own scopes; every request —
 * each item of a batch too — reaches only what its own token's scopes allow. The HTTP layer hands
 * the SDK transport one `authInfo` object per request, which the SDK passes to every handler of
 * every message of that request by reference; the request's caller is that object's private
 * field (nothing rides in `authInfo.extra`). A request that carries none (the `--stdio` door,
 * which has one caller for its whole life) is judged as the session's standing caller.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Caller } from "../../gateway/types.ts";

/**
 * The `authInfo` of one request, made by the HTTP door: its caller is a private field, which
 * only this module reads — not `extra`, which anything could fill — and a copy (a spread, a
 * clone) is a plain object without it, so no `authInfo` the door did not make is ever taken as
 * a caller. One object per request: less than the `extra` bag it replaces.
 */
class RequestAuth implements AuthInfo {
  readonly token = "";
  readonly clientId: string;
  readonly scopes: string[] = [];
  readonly #caller: Caller;

  constructor(caller: Caller) {
    this.clientId = caller.tokenName ?? "";
    this.#caller = caller;
  }

  static callerOf(info: AuthInfo | undefined): Caller | undefined {
    return info instanceof RequestAuth ? info.#caller : undefined;
  }
}

/** A fresh `authInfo` for one request, which its handlers resolve to `caller`. */
export function authInfoOf(caller: Caller): AuthInfo {
  return new RequestAuth(caller);
}

/** The caller a handler judges its request as: the request's own, else `standing()`. */
export function callerOfRequest(
  extra: { authInfo?: AuthInfo | undefined },
  standing: () => Caller,
): Caller {
  return RequestAuth.callerOf(extra.authInfo) ?? standing();
}
