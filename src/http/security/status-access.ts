/**
 * Who may read the operator routes (`/`, `/status.json`, `/metrics`). With auth on they answer
 * admin tokens only — a bearer token with `admin: true`, or the status-page cookie it signed in
 * with — because they name every server, tool and token. The cookie is honoured on these paths
 * alone; `/mcp` and every other route still need a bearer token. Without auth (loopback only)
 * they stay open.
 */
import type { Context } from "hono";
import { parse } from "hono/utils/cookie";
import type { TokenConfig } from "../../config/mod.ts";
import type { AppEnv } from "../app.ts";
import type { RequestIdentity } from "../../session/mod.ts";
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
  /** Bearer auth, used whenever a request carries `Authorization`. */
  bearer: (authorization: string | null, path: string) => Promise<RequestIdentity>;
}

/**
 * The auth step for {@link STATUS_PATHS}: a bearer token as everywhere, else a valid status
 * cookie, else (on the sign-in paths) a signed-out identity the route answers with the sign-in
 * page; else the bearer refusal.
 */
export function statusAccess(
  options: StatusAccessOptions,
): (request: Request, path: string) => Promise<RequestIdentity> {
  return function statusAccess(request, path) {
    const tokens = options.tokens();
    const authorization = request.headers.get("authorization");
    if (tokens === null || authorization !== null) return options.bearer(authorization, path);
    const cookies = request.headers.get("cookie");
    const value = cookies ? parse(cookies, STATUS_COOKIE)[STATUS_COOKIE] : undefined;
    const token = value === undefined ? null : options.sessions.verify(value, tokens);
    if (token) {
      return Promise.resolve({
        tokenName: token.name,
        toolGlobs: token.tools,
        admin: true,
        browser: true,
      });
    }
    if (SIGN_IN.has(`${request.method} ${path}`)) return Promise.resolve(SIGNED_OUT);
    return options.bearer(authorization, path);
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
