/**
 * The HTTP surface on hono: `/mcp` (streamable HTTP), `/sse` + `/message` (legacy SSE), and
 * health endpoints. Errors that end a request before the MCP layer are answered in one
 * `onError`, mapped from the gateway's string codes.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Gateway } from "../gateway/mod.ts";
import { GatewayError, httpStatusOf, messageOf } from "../shared/errors.ts";
import { plainError } from "./front-door.ts";
import { readiness } from "./readiness.ts";
import { classify, type ModernFront } from "../session/modern/mod.ts";
import type { RequestIdentity, SessionRegistry } from "./sessions.ts";

/** Variables middleware sets on the hono context. */
export type AppEnv = { Variables: { identity: RequestIdentity } };

/** What the app needs. */
export interface AppDeps {
  gateway: Gateway;
  sessions: SessionRegistry;
  /** Middleware added before the routes (auth, origin checks, rate limits). */
  middleware?: MiddlewareHandler<AppEnv>[];
  /** The 2026-07-28 front door; without it `/mcp` speaks the 2025 revisions only. */
  modern?: ModernFront;
  /** Extra routes (metrics, status page). */
  routes?: (app: Hono<AppEnv>) => void;
}

const ANONYMOUS: RequestIdentity = { tokenName: null, toolGlobs: null };

/** Paths that answer without auth or origin checks: liveness and readiness probes. */
export const OPEN_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz"]);

/** Builds the hono app. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { gateway, sessions } = deps;
  const app = new Hono<AppEnv>();

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", (c) => {
    // Unauthenticated by design (probes): with auth on, reasons stay behind a token.
    const reasons = gateway.config.gateway.tokens === null;
    const { ready, ...rest } = readiness(gateway.pool.all(), { reasons });
    return c.json({ status: ready ? "ready" : "not ready", ...rest }, ready ? 200 : 503);
  });

  const limit = bodyLimit({
    maxSize: gateway.config.gateway.requestBodyBytes,
    onError: () => {
      throw new GatewayError(
        "TOO_LARGE",
        `request body over ${gateway.config.gateway.requestBodyBytes} bytes`,
      );
    },
  });
  // Security middleware guards every route but the health probes, including routes added later
  // through `deps.routes` (metrics, status page) and unknown paths.
  for (const mw of deps.middleware ?? []) {
    app.use("*", (c, next) => OPEN_PATHS.has(c.req.path) ? next() : mw(c, next));
  }

  const who = (c: { get(key: "identity"): RequestIdentity | undefined }) =>
    c.get("identity") ?? ANONYMOUS;
  const maxBody = gateway.config.gateway.requestBodyBytes;
  app.on(["POST", "GET", "DELETE"], "/mcp", limit, async (c) => {
    const modern = deps.modern;
    if (modern) {
      const door = await classify(c.req.raw, maxBody);
      if (door.modern) return modern.fetch(c.req.raw, who(c), door.body, door.route);
    }
    return sessions.handleMcp(c.req.raw, who(c));
  });
  app.get("/sse", (c) => sessions.openSse(who(c), "/message"));
  app.post(
    "/message",
    limit,
    (c) => sessions.handleSseMessage(c.req.raw, c.req.query("sessionId") ?? null, who(c)),
  );

  deps.routes?.(app);

  app.onError((err, c) => {
    const status = httpStatusOf(err);
    if (status >= 500) {
      gateway.log.error("request failed", { path: c.req.path, error: messageOf(err) });
    }
    // A 500 says nothing about the server: its message may carry file paths; the log has it.
    if (status === 500) {
      return plainError(500, -32603, "Internal error (details are in the gateway's log)");
    }
    const code = err instanceof GatewayError ? err.code : "INTERNAL";
    return c.json({ error: { code, message: messageOf(err) } }, status as 500, headersOf(err));
  });
  app.notFound((c) =>
    c.json({ error: { code: "NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}` } }, 404)
  );
  return app;
}

/** Headers an error answer must carry: the auth challenge, or when to retry. */
function headersOf(err: unknown): Record<string, string> {
  if (!(err instanceof GatewayError)) return {};
  if (err.code === "UNAUTHORIZED") return { "WWW-Authenticate": 'Bearer realm="mcp-gateway"' };
  const retryAfter = err.data?.retryAfter;
  if (err.code === "RATE_LIMITED" && typeof retryAfter === "number") {
    return { "Retry-After": String(retryAfter) };
  }
  return {};
}
