/**
 * Who may read the operator routes (`/`, `/status.json`, `/metrics`). With auth on they answer
 * admin tokens only — a bearer token with `admin: true`, or the status-page cookie it signed in
 * with — because they name every server, tool and token. The cookie is honoured on these paths
 * alone; `/mcp` and every other route still need a bearer token. Without auth (loopback only)
 * they stay open.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { TokenConfig } from "../../config/mod.ts";
import type { AppEnv } from "../app.ts";
import type { RequestIdentity } from "../sessions.ts";
import { STATUS_COOKIE, type StatusSessions } from "./status-session.ts";

/** Paths served by the status routes; the cookie counts here and nowhere else. */
export const STATUS_PATHS: ReadonlySet<string> = new Set([
  "/",
  "/status.json",
  "/metrics",
  "/cluster",
  "/login",
  "/logout",
  "/pins/approve",
]);

/** Requests answered without credentials: the sign-in page and its form (`METHOD path`). */
const SIGN_IN: ReadonlySet<string> = new Set(["GET /", "HEAD /", "POST /login", "POST /logout"]);

/** A browser that has not signed in: no name, no tools, not admin. */
const SIGNED_OUT: RequestIdentity = { tokenName: null, toolGlobs: [], admin: false };

/** Options for {@link statusAccess}. */
export interface StatusAccessOptions {
  /** The live token list (`null` = auth off). */
  tokens: () => readonly TokenConfig[] | null;
  sessions: StatusSessions;
  /** The bearer-token middleware, used whenever a request carries `Authorization`. */
  bearer: MiddlewareHandler<AppEnv>;
}

/**
 * Middleware for {@link STATUS_PATHS}: a bearer token as everywhere, else a valid status cookie,
 * else (on the sign-in paths) a signed-out identity the route answers with the sign-in page.
 */
export function statusAccess(options: StatusAccessOptions): MiddlewareHandler<AppEnv> {
  return async function statusAccess(c, next) {
    const tokens = options.tokens();
    if (tokens === null || c.req.header("authorization") !== undefined) {
      return await options.bearer(c, next);
    }
    const value = getCookie(c, STATUS_COOKIE);
    const token = value === undefined ? null : options.sessions.verify(value, tokens);
    if (token) {
      c.set("identity", {
        tokenName: token.name,
        toolGlobs: token.tools,
        admin: true,
        browser: true,
      });
      return await next();
    }
    if (SIGN_IN.has(`${c.req.method} ${c.req.path}`)) {
      c.set("identity", SIGNED_OUT);
      return await next();
    }
    return await options.bearer(c, next);
  };
}

/** What a status route may do for this request. */
export type StatusGate = "open" | "admin" | "sign-in" | "forbidden";

/** Decides a status route's answer: auth off → open; admin → admin; signed out; or refused. */
export function statusGate(c: Context<AppEnv>, authOn: boolean): StatusGate {
  if (!authOn) return "open";
  const who = c.get("identity");
  if (who?.admin === true) return "admin";
  return who?.tokenName == null ? "sign-in" : "forbidden";
}
