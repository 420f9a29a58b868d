/**
 * @module HTTP security: the middleware chain every non-health route passes through
 * (OAuth metadata → origin/host check → bearer auth, with OAuth access tokens as its fallback →
 * per-token rate limit), the per-token call limits the core consults on every tool call, and the
 * start-up exposure check.
 */
import type { MiddlewareHandler } from "hono";
import type { TokenConfig } from "../../config/mod.ts";
import type { Gateway } from "../../gateway/mod.ts";
import type { AppEnv } from "../app.ts";
import type { RequestIdentity } from "../sessions.ts";
import { authenticator, bearerAuth } from "./auth.ts";
import { isLoopback } from "./exposure.ts";
import {
  addChallenge,
  oauthChallenge,
  oauthFallback,
  protectedResourceMetadata,
} from "./oauth/mod.ts";
import { originCheck, originGuard } from "./origin.ts";
import { rateCheck, rateLimit, type RateLimitOptions } from "./rate-limit.ts";
import { STATUS_PATHS, statusAccess } from "./status-access.ts";
import { StatusSessions } from "./status-session.ts";

export { bearerAuth, bearerToken, matchToken } from "./auth.ts";
export { TokenCallLimits } from "./call-limits.ts";
export type { CallRate, SharedCallBuckets } from "./call-limits.ts";
export type { BearerAuthOptions } from "./auth.ts";
export { assertSafeExposure, isLoopback } from "./exposure.ts";
export { defaultHosts, LOOPBACK_HOSTS, matchesHostGlob, originGuard } from "./origin.ts";
export type { OriginGuardOptions } from "./origin.ts";
export {
  METADATA_PATH,
  metadataDocument,
  metadataUrl,
  oauthChallenge,
  OAuthVerifier,
  protectedResourceMetadata,
} from "./oauth/mod.ts";
export { rateLimit, TokenBuckets } from "./rate-limit.ts";
export type { Rate, RateLimitOptions } from "./rate-limit.ts";
export { STATUS_PATHS, statusAccess, type StatusGate, statusGate } from "./status-access.ts";
export type { StatusAccessOptions } from "./status-access.ts";
export { STATUS_COOKIE, STATUS_SESSION_TTL_MS, StatusSessions } from "./status-session.ts";
export type { StatusSessionOptions } from "./status-session.ts";

/**
 * The checks of the security chain for `POST /mcp` as plain functions (the pre-dispatch in
 * `../app.ts` runs them without a middleware chain): the same checks, in the same order.
 */
export interface McpGuard {
  /** Origin/host, then bearer auth, then the token's rate: the identity, or the thrown refusal. */
  admit(request: Request, path: string): Promise<RequestIdentity>;
  /** Puts the OAuth challenge on a refusal, as the chain's `oauthChallenge` does. */
  challenge(response: Response, err: unknown, request: Request): void;
}

/** The security middleware and the equivalent {@link McpGuard}. */
export interface SecurityChain {
  middleware: MiddlewareHandler<AppEnv>[];
  mcpGuard: McpGuard;
}

/**
 * The security middleware for a gateway listening on `listenHost`, in order, and the same
 * checks for the `POST /mcp` pre-dispatch. Each reads the gateway's live config per request, so
 * a reload changes tokens, origins and rates in place. On the status routes a status-page cookie
 * from `statusSessions` stands in for the bearer token.
 */
export function securityChain(
  gateway: Gateway,
  listenHost: string,
  statusSessions: StatusSessions = new StatusSessions(),
  sharedBuckets?: RateLimitOptions["shared"],
): SecurityChain {
  const log = gateway.log.child("security");
  const g = () => gateway.config.gateway;
  const oauth = () => g().oauth;
  const origins = {
    origins: () => g().allowedOrigins,
    hosts: () => g().allowedHosts,
    listenHost,
    log,
  };
  const bearer = {
    tokens: () => g().tokens,
    required: !isLoopback(listenHost),
    log,
    verify: oauthFallback(oauth, log),
    oauth: () => oauth() !== null,
  };
  const rates = {
    rate: () => g().rateLimit,
    log,
    ...(sharedBuckets ? { shared: sharedBuckets } : {}),
  };
  const checkOrigin = originCheck(origins);
  const authenticate = authenticator(bearer);
  const checkRate = rateCheck(rates);
  return {
    middleware: [
      protectedResourceMetadata(oauth),
      originGuard(origins),
      oauthChallenge(oauth),
      authFor(bearerAuth(bearer), statusSessions, () => g().tokens),
      rateLimit(rates),
    ],
    mcpGuard: {
      async admit(request, path) {
        const headers = request.headers;
        checkOrigin(headers, request.url, path);
        const who = await authenticate(headers.get("authorization"), path);
        await checkRate(who.tokenName);
        return who;
      },
      challenge(response, err, request) {
        addChallenge(oauth(), response, err, request.headers.get("authorization"));
      },
    },
  };
}

/** The security middleware of {@link securityChain}. */
export function securityMiddleware(
  gateway: Gateway,
  listenHost: string,
  statusSessions: StatusSessions = new StatusSessions(),
  sharedBuckets?: RateLimitOptions["shared"],
): MiddlewareHandler<AppEnv>[] {
  return securityChain(gateway, listenHost, statusSessions, sharedBuckets).middleware;
}

/** Bearer auth everywhere; on the status routes, the status cookie as well. */
function authFor(
  bearer: MiddlewareHandler<AppEnv>,
  sessions: StatusSessions,
  tokens: () => readonly TokenConfig[] | null,
): MiddlewareHandler<AppEnv> {
  const status = statusAccess({ tokens, sessions, bearer });
  return function auth(c, next) {
    return STATUS_PATHS.has(c.req.path) ? status(c, next) : bearer(c, next);
  };
}
