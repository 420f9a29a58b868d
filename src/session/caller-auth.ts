/**
 * The `authInfo` a door hands the SDK with each request — one shape for both doors and both
 * SDK generations (their `AuthInfo` types describe the same fields). Its caller, and for a
 * 2026-07-28 `tools/call` an answer the fast path already has, are private fields that only
 * this module reads — not `extra`, which anything could fill — and a copy (a spread, a clone)
 * is a plain object without them, so no `authInfo` a door did not make is ever taken as a
 * caller. The SDK passes the one object to every handler of the request by reference.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Caller } from "../gateway/types.ts";

/** One request's `authInfo`, made by its door. */
export class CallerAuth implements AuthInfo {
  readonly token = "";
  readonly clientId: string;
  readonly scopes: string[] = [];
  readonly #caller: Caller;
  readonly #ready: unknown;

  constructor(caller: Caller, ready?: unknown) {
    this.clientId = caller.tokenName ?? "";
    this.#caller = caller;
    this.#ready = ready;
  }

  /** The caller of `info`, when a door made it. */
  static callerOf(info: unknown): Caller | undefined {
    return info instanceof CallerAuth ? info.#caller : undefined;
  }

  /** The answer the fast path already had for the request of `info`, if any. */
  static readyOf(info: unknown): unknown {
    return info instanceof CallerAuth ? info.#ready : undefined;
  }
}

/**
 * A fresh `authInfo` for one request, which its handlers resolve to `caller`; `ready` is a
 * `tools/call` answer the fast path already has (returned by the handler as it is, so the SDK
 * checks and encodes it).
 */
export function authInfoOf(caller: Caller, ready?: unknown): AuthInfo {
  return new CallerAuth(caller, ready);
}
