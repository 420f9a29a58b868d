/**
 * @module HTTP security: the middleware chain every non-health route passes through
 * (origin/host check → bearer auth → per-token rate limit) and the start-up exposure check.
 */
import type { MiddlewareHandler } from "hono";
import type { Gateway } from "../../gateway/mod.ts";
import type { AppEnv } from "../app.ts";
import { bearerAuth } from "./auth.ts";
import { isLoopback } from "./exposure.ts";
import { originGuard } from "./origin.ts";
import { rateLimit, type RateLimitOptions } from "./rate-limit.ts";

export { bearerAuth, bearerToken, matchToken } from "./auth.ts";
export type { BearerAuthOptions } from "./auth.ts";
export { assertSafeExposure, isLoopback } from "./exposure.ts";
export { defaultHosts, LOOPBACK_HOSTS, matchesHostGlob, originGuard } from "./origin.ts";
export type { OriginGuardOptions } from "./origin.ts";
export { rateLimit, TokenBuckets } from "./rate-limit.ts";
export type { Rate, RateLimitOptions } from "./rate-limit.ts";

/**
 * The security middleware for a gateway listening on `listenHost`, in order. Each reads the
 * gateway's live config per request, so a reload changes tokens, origins and rates in place.
 */
export function securityMiddleware(
  gateway: Gateway,
  listenHost: string,
  sharedBuckets?: RateLimitOptions["shared"],
): MiddlewareHandler<AppEnv>[] {
  const log = gateway.log.child("security");
  const g = () => gateway.config.gateway;
  return [
    originGuard({
      origins: () => g().allowedOrigins,
      hosts: () => g().allowedHosts,
      listenHost,
      log,
    }),
    bearerAuth({ tokens: () => g().tokens, required: !isLoopback(listenHost), log }),
    rateLimit({
      rate: () => g().rateLimit,
      log,
      ...(sharedBuckets ? { shared: sharedBuckets } : {}),
    }),
  ];
}
