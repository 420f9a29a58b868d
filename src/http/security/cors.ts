/**
 * CORS for web pages on other origins (`gateway.cors`, off by default): hono's `cors`
 * middleware on the MCP endpoints and the OAuth metadata, answering for exactly the origins the
 * origin check lets through (`gateway.allowedOrigins`, which `cors.origins` then sets), so no
 * origin is allowed by one and refused by the other. It runs before the security chain: a
 * preflight carries no credentials and is answered here, and every answer — a refusal of the
 * chain too, a `401` and its `WWW-Authenticate` above all — leaves with the CORS headers, so a
 * page can read why it was refused and start a login.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { CorsConfig } from "../../config/mod.ts";
import type { Gateway } from "../../gateway/mod.ts";
import type { AppEnv } from "../app.ts";
import { matchesHostGlob } from "./origin.ts";

/** Whether `path` answers pages on other origins: the MCP endpoints and the OAuth metadata. */
export function isCorsPath(path: string): boolean {
  return path === "/mcp" || path.startsWith("/mcp/") || path === "/sse" ||
    path.startsWith("/sse/") || path === "/message" || path.startsWith("/.well-known/");
}

/** Response headers a page may read: the session, the revision, the auth challenge, the wait. */
const EXPOSED = ["Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate", "Retry-After"];

/**
 * The CORS middleware over the gateway's live config: it does nothing while `gateway.cors` is
 * off, and is rebuilt when a reload changes the section.
 */
export function corsMiddleware(gateway: Gateway): MiddlewareHandler<AppEnv> {
  let built: { config: CorsConfig; middleware: MiddlewareHandler<AppEnv> } | undefined;
  return function corsAnswer(c, next) {
    const config = gateway.config.gateway.cors;
    if (config === null) return next();
    if (built?.config !== config) built = { config, middleware: build(gateway, config) };
    return built.middleware(c, next);
  };
}

function build(gateway: Gateway, config: CorsConfig): MiddlewareHandler<AppEnv> {
  return cors({
    origin: (origin) =>
      origin !== "" && matchesHostGlob(origin, gateway.config.gateway.allowedOrigins)
        ? origin
        : null,
    allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
    // Empty: the headers a preflight asks for are echoed (Authorization, Mcp-Session-Id, the
    // 2026-07-28 parameter headers…); which origin may send them is what is checked.
    allowHeaders: [],
    exposeHeaders: EXPOSED,
    credentials: config.credentials,
    maxAge: config.maxAgeS,
  });
}

/**
 * Whether `request` needs the CORS answer: CORS is on and a browser sent an `Origin`. The lean
 * `POST /mcp` pre-dispatch hands such a request to hono, where the middleware runs.
 */
export function wantsCors(gateway: Gateway, request: Request): boolean {
  return gateway.config.gateway.cors !== null && request.headers.has("origin");
}
