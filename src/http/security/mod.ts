/**
 * @module HTTP security: the one chain every non-health request passes through (`chain.ts`:
 * OAuth discovery → origin/host check → bearer auth, with OAuth access tokens as its fallback
 * and the status cookie on the status routes → per-token rate limit), the per-token call limits
 * the core consults on every tool call, and the start-up exposure check.
 */
import type { MiddlewareHandler } from "hono";
import type { Gateway } from "../../gateway/mod.ts";
import type { AppEnv } from "../app.ts";
import { authenticator } from "./auth.ts";
import { type Check, RequestChain } from "./chain.ts";
import { isLoopback } from "./exposure.ts";
import { oauthFallback } from "./oauth/mod.ts";
import { originCheck } from "./origin.ts";
import { rateCheck, type RateLimitOptions } from "./rate-limit.ts";
import { isStatusPath, statusAccess } from "./status-access.ts";
import { StatusSessions } from "./status-session.ts";

export { authenticator, bearerToken, matchToken } from "./auth.ts";
export { type Check, checkDeclaredBody, RequestChain, tooLarge } from "./chain.ts";
export type { RequestChainOptions } from "./chain.ts";
export { TokenCallLimits } from "./call-limits.ts";
export type { CallRate, SharedCallBuckets } from "./call-limits.ts";
export type { BearerAuthOptions } from "./auth.ts";
export { corsMiddleware, isCorsPath, wantsCors } from "./cors.ts";
export { assertSafeExposure, isLoopback } from "./exposure.ts";
export { defaultHosts, LOOPBACK_HOSTS, matchesHostGlob, originCheck } from "./origin.ts";
export type { OriginGuardOptions } from "./origin.ts";
export {
  discoveryAnswer,
  METADATA_PATH,
  metadataDocument,
  metadataUrl,
  OAuthVerifier,
} from "./oauth/mod.ts";
export { rateCheck, TokenBuckets } from "./rate-limit.ts";
export type { Rate, RateLimitOptions } from "./rate-limit.ts";
export {
  ADMIN_PREFIX,
  isStatusPath,
  sameOriginCheck,
  STATUS_PATHS,
  statusAccess,
  type StatusGate,
  statusGate,
} from "./status-access.ts";
export type { StatusAccessOptions } from "./status-access.ts";
export { STATUS_COOKIE, STATUS_SESSION_TTL_MS, StatusSessions } from "./status-session.ts";
export type { StatusSessionOptions } from "./status-session.ts";

/**
 * The security chain of a gateway listening on `listenHost` (see `chain.ts`): origin and host,
 * then auth (on the status routes a status-page cookie from `statusSessions` stands in for the
 * bearer token), then the token's request rate — shared by a cluster's instances through
 * `sharedBuckets`. Each step reads the gateway's live config per request, so a reload changes
 * tokens, origins and rates in place.
 */
export function securityChain(
  gateway: Gateway,
  listenHost: string,
  statusSessions: StatusSessions = new StatusSessions(),
  sharedBuckets?: RateLimitOptions["shared"],
): RequestChain {
  const log = gateway.log.child("security");
  const g = () => gateway.config.gateway;
  const oauth = () => g().oauth;
  const checkOrigin = originCheck({
    origins: () => g().allowedOrigins,
    hosts: () => g().allowedHosts,
    listenHost,
    log,
  });
  const bearer = authenticator({
    tokens: () => g().tokens,
    required: !isLoopback(listenHost),
    log,
    verify: oauthFallback(oauth, log),
    oauth: () => oauth() !== null,
  });
  const status = statusAccess({ tokens: () => g().tokens, sessions: statusSessions, bearer });
  const checkRate = rateCheck({
    rate: () => g().rateLimit,
    log,
    ...(sharedBuckets ? { shared: sharedBuckets } : {}),
  });
  const origin: Check = (request, path, who) => {
    checkOrigin(request.headers, request.url, path);
    return who;
  };
  // The status page's Connect link (/oauth/connect/<server>) is followed with the admin's cookie.
  const auth: Check = (request, path) =>
    isStatusPath(path) || path.startsWith("/oauth/connect/")
      ? status(request, path)
      : bearer(request.headers.get("authorization"), path);
  const rate: Check = (_request, _path, who) => {
    const waiting = checkRate(who.tokenName);
    return waiting === undefined ? who : waiting.then(() => who);
  };
  return new RequestChain({ gateway, oauth, checks: [origin, auth, rate] });
}

/** The middleware of {@link securityChain}, for an app given no chain of its own. */
export function securityMiddleware(
  gateway: Gateway,
  listenHost: string,
  statusSessions: StatusSessions = new StatusSessions(),
): MiddlewareHandler<AppEnv>[] {
  return [securityChain(gateway, listenHost, statusSessions).middleware];
}
