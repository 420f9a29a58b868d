/**
 * Who may read the operator routes (`/`, `/status.json`, `/metrics`) and use the admin API
 * (`/admin/…`). With auth on they answer admin tokens only — a bearer token with `admin: true`,
 * or the status-page cookie it signed in with — because they name every server, tool and token
 * and change what runs. The cookie is honoured on these paths alone; `/mcp` and every other
 * route still need a bearer token. Without auth (loopback only) they stay open. What changes
 * state must come from the page itself ({@link sameOriginCheck}): a cookie, or no auth at all,
 * would otherwise let any page the browser opens post to them.
 */
import type { Context } from "hono";
import { parse } from "hono/utils/cookie";
import type { TokenConfig } from "../../config/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
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

/** Paths of the admin API: status routes too (the console's forms post to them). */
export const ADMIN_PREFIX = "/admin/";

/** True for a path of the status routes or the admin API. */
export function isStatusPath(path: string): boolean {
  return STATUS_PATHS.has(path) || path.startsWith(ADMIN_PREFIX);
}

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
  bearer: (
    authorization: string | null,
    path: string,
  ) => RequestIdentity | Promise<RequestIdentity>;
}

/**
 * The auth step for {@link STATUS_PATHS}: a bearer token as everywhere, else a valid status
 * cookie, else (on the sign-in paths) a signed-out identity the route answers with the sign-in
 * page; else the bearer refusal.
 */
export function statusAccess(
  options: StatusAccessOptions,
): (request: Request, path: string) => RequestIdentity | Promise<RequestIdentity> {
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

/** Methods that only read: no same-origin proof needed. */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Throws `FORBIDDEN` when a request that changes state did not come from the gateway's own
 * pages: its `Origin` (which browsers send on every form post and `fetch` that is not a GET)
 * must be the gateway's own — the address the request was sent to, or `gateway.publicUrl` —
 * and without an `Origin`, `Sec-Fetch-Site` must not name another site. The command line sends
 * neither header and passes; a page on another origin (another port of localhost included, which
 * the default `allowedOrigins` admits to `/mcp`) cannot act with the admin's cookie.
 */
export function sameOriginCheck(request: Request, publicUrl: string | null): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.get("origin");
  if (origin !== null) {
    if (ownOrigins(request, publicUrl).includes(origin.toLowerCase())) return;
    throw new GatewayError(
      "FORBIDDEN",
      `this action must come from the gateway's own page, not from origin ${origin}`,
    );
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw new GatewayError(
      "FORBIDDEN",
      `this action must come from the gateway's own page (Sec-Fetch-Site: ${site})`,
    );
  }
}

/** The origins a request to this gateway may come from: where it was sent, and `publicUrl`. */
function ownOrigins(request: Request, publicUrl: string | null): string[] {
  const url = new URL(request.url);
  const host = request.headers.get("host") ?? url.host;
  const https = url.protocol === "https:" ||
    request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
  const out = [`${https ? "https" : "http"}://${host}`.toLowerCase()];
  if (publicUrl !== null) out.push(new URL(publicUrl).origin.toLowerCase());
  return out;
}
