/**
 * The HTTP surface on hono: `/mcp`, `/sse` and `/message` (the front doors, asked in order), and
 * health endpoints. Errors that end a request before the MCP layer are answered in one
 * `onError`, mapped from the gateway's string codes.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Gateway } from "../gateway/mod.ts";
import { RETRY_AFTER_S } from "../shared/errors.ts";
import { errorResponse } from "./error-answer.ts";
import { plainError } from "./front-door.ts";
import { admitProfile, isMcpPath, profileOfPath } from "./profile-route.ts";
import { readiness } from "./readiness.ts";
import { checkDeclaredBody, type RequestChain, tooLarge } from "./security/chain.ts";
import { corsMiddleware, isCorsPath, wantsCors } from "./security/cors.ts";
import { ANONYMOUS, type Door, type RequestIdentity } from "../session/mod.ts";

/** Variables middleware sets on the hono context. */
export type AppEnv = { Variables: { identity: RequestIdentity } };

/** What the app needs. */
export interface AppDeps {
  gateway: Gateway;
  /**
   * The doors of `/mcp`, `/sse` (and their `/<profile>` forms) and `/message`, asked in this
   * order: the first that accepts a request serves it. The app names none of them: a new door
   * is one more entry here.
   */
  doors: readonly Door[];
  /**
   * The security chain (`security/chain.ts`): its middleware guards every route but the health
   * probes, and a `POST /mcp` of stated length runs the same chain without hono's router (see
   * {@link GatewayApp}).
   */
  chain?: RequestChain;
  /** Further middleware, after the chain (tests). */
  middleware?: MiddlewareHandler<AppEnv>[];
  /** Extra routes (metrics, status page). */
  routes?: (app: Hono<AppEnv>) => void;
}

/**
 * Paths that answer without auth or origin checks: liveness and readiness probes, and the
 * upstream-login callback and per-user connect links (a browser's; their one-use `state` or link
 * token is the check).
 */
export const OPEN_PATHS: ReadonlySet<string> = new Set([
  "/healthz",
  "/readyz",
  "/oauth/callback",
  "/oauth/link",
]);

/**
 * The hono app, with one pre-dispatch in front of its router: a `POST /mcp` (or
 * `/mcp/<profile>`) that states its length (every call of either era: the hot path — a 2025
 * session's, or a stateless 2026-07-28 request) is judged by the one security chain, then the
 * declared body size, then goes to the first door that accepts it; its refusals are answered
 * by the chain, so it gets exactly what hono's middleware (the same chain) would give it, at the
 * cost of a few header reads. Everything else goes through hono.
 */
export class GatewayApp extends Hono<AppEnv> {
  #mcp: ((request: Request, path: string) => Promise<Response>) | undefined;
  #viaHono: (request: Request) => boolean = () => false;

  constructor() {
    super();
    // Hono's `fetch` is an instance field: the pre-dispatch wraps this instance's own.
    const hono = this.fetch;
    this.fetch = (request, env, ctx) => {
      const mcp = this.#mcp;
      if (mcp !== undefined && request.method === "POST") {
        const path = pathOf(request.url);
        if (
          isMcpPath(path) && request.headers.has("content-length") &&
          !request.headers.has("transfer-encoding") && !this.#viaHono(request)
        ) {
          return mcp(request, path);
        }
      }
      return hono(request, env, ctx);
    };
  }

  /**
   * Sets the pre-dispatch (see the class comment), which is handed the request and its path,
   * except a request `viaHono` sends through hono's middleware (a browser's, when CORS is on);
   * `createApp` calls it.
   */
  preDispatch(
    mcp: (request: Request, path: string) => Promise<Response>,
    viaHono?: (request: Request) => boolean,
  ): void {
    this.#mcp = mcp;
    if (viaHono) this.#viaHono = viaHono;
  }
}

/** The path of an absolute URL, without parsing it (`""` when it has none). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "";
  let end = url.length;
  for (let i = start; i < url.length; i++) {
    const ch = url.charCodeAt(i);
    if (ch === 63 /* ? */ || ch === 35 /* # */) {
      end = i;
      break;
    }
  }
  return url.slice(start, end);
}

/**
 * Serves `request` by the first of `doors` that accepts it. Indexed, and with a frame of its own
 * only once a door answers with a promise (`enterFrom`), so asking doors that answer at once
 * costs no allocation and no tick of its own.
 */
function enter(
  doors: readonly Door[],
  request: Request,
  identity: RequestIdentity,
  path: string,
): Promise<Response> {
  try {
    for (let i = 0; i < doors.length; i++) {
      const door = doors[i]!;
      const ticket = door.accepts(request, path);
      if (ticket instanceof Promise) return enterFrom(doors, i, ticket, request, identity, path);
      if (ticket === false) continue;
      // A door that read the body to decide, and declined, hands on a readable copy.
      if (ticket instanceof Request) request = ticket;
      else return door.fetch(request, identity, ticket);
    }
  } catch (err) {
    return Promise.reject(err);
  }
  return Promise.resolve(noDoor());
}

/** {@link enter} on from door `i`, whose answer is `pending`. */
async function enterFrom(
  doors: readonly Door[],
  i: number,
  pending: Promise<unknown>,
  request: Request,
  identity: RequestIdentity,
  path: string,
): Promise<Response> {
  let ticket = await pending;
  for (;;) {
    if (ticket instanceof Request) request = ticket;
    else if (ticket !== false) return await doors[i]!.fetch(request, identity, ticket);
    if (++i >= doors.length) return noDoor();
    ticket = doors[i]!.accepts(request, path);
    if (ticket instanceof Promise) ticket = await ticket;
  }
}

const noDoor = () => plainError(404, -32000, "Not Found: no front door serves this request");

/** Hono's counting body limit at `max` bytes, refusing with the chain's `TOO_LARGE`. */
function countedBody(max: number): { max: number; middleware: MiddlewareHandler<AppEnv> } {
  return {
    max,
    middleware: bodyLimit({
      maxSize: max,
      onError: () => {
        throw tooLarge(max);
      },
    }),
  };
}

/** Builds the hono app. */
export function createApp(deps: AppDeps): GatewayApp {
  const { gateway, doors } = deps;
  const app = new GatewayApp();
  const chain = deps.chain;
  // One router for `/mcp`, `/sse` and their `/<profile>` forms, from the pre-dispatch and from
  // hono: the endpoint's profile joins the identity (or the token is refused there); then the
  // doors are asked in order.
  const route = (request: Request, who: RequestIdentity, path: string) => {
    const identity = admitProfile(gateway, who, profileOfPath(path));
    return identity instanceof Response ? identity : enter(doors, request, identity, path);
  };
  if (chain) {
    app.preDispatch(async function postMcp(request, path) {
      let who = chain.judge(request, path);
      if (who instanceof Promise) who = await who;
      if (who instanceof Response) return who;
      try {
        checkDeclaredBody(request, gateway.config.gateway.requestBodyBytes);
        const response = await route(request, who, path);
        chain.challenge(response, undefined, request);
        return response;
      } catch (err) {
        return chain.refusal(err, request, path);
      }
    }, (request) => wantsCors(gateway, request));
  }

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", (c) => {
    // Unauthenticated by design (probes): with auth on, reasons stay behind a token.
    const reasons = gateway.config.gateway.tokens === null;
    const { ready, ...rest } = readiness(gateway.pool.all(), { reasons });
    if (ready) return c.json({ status: "ready", ...rest });
    c.header("Retry-After", String(RETRY_AFTER_S));
    return c.json({ status: "not ready", ...rest }, 503);
  });

  // The body size: the declared length by the chain's check, a body of unstated length as read.
  // Both read the live config, so a reload that changes the limit applies to the next request;
  // the counting middleware is rebuilt only when the limit has changed.
  let counted = countedBody(gateway.config.gateway.requestBodyBytes);
  const limit: MiddlewareHandler<AppEnv> = (c, next) => {
    const max = gateway.config.gateway.requestBodyBytes;
    checkDeclaredBody(c.req.raw, max);
    if (counted.max !== max) counted = countedBody(max);
    return counted.middleware(c, next);
  };
  // CORS first: a preflight is answered before the chain would ask it for credentials, and
  // the chain's refusals leave with the CORS headers (`security/cors.ts`).
  const corsAnswer = corsMiddleware(gateway);
  app.use("*", (c, next) => isCorsPath(c.req.path) ? corsAnswer(c, next) : next());
  // The chain guards every route but the health probes, including routes added later through
  // `deps.routes` (metrics, status page) and unknown paths.
  for (const mw of [...(chain ? [chain.middleware] : []), ...deps.middleware ?? []]) {
    app.use("*", (c, next) => OPEN_PATHS.has(c.req.path) ? next() : mw(c, next));
  }

  const who = (c: { get(key: "identity"): RequestIdentity | undefined }) =>
    c.get("identity") ?? ANONYMOUS;
  const mcp = (c: Context<AppEnv>) => route(c.req.raw, who(c), c.req.path);
  app.on(["POST", "GET", "DELETE"], "/mcp", limit, mcp);
  app.on(["POST", "GET", "DELETE"], "/mcp/:profile", limit, mcp);
  app.get("/sse", mcp);
  app.get("/sse/:profile", mcp);
  // `/message` names no profile: the legacy session it posts to keeps the one it was opened
  // on, so the doors are asked without an endpoint's admission.
  app.post("/message", limit, (c) => enter(doors, c.req.raw, who(c), c.req.path));

  deps.routes?.(app);

  app.onError((err, c) => errorResponse(gateway, err, c.req.path));
  app.notFound((c) =>
    c.json({ error: { code: "NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}` } }, 404)
  );
  return app;
}
