/**
 * Per-token rate limits: a token bucket per token name that holds `burst` requests and refills
 * at `perMinute`. Buckets exist only for configured tokens, so memory stays bounded.
 */
import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import type { AppEnv } from "../app.ts";

export { type Rate, TokenBuckets } from "../../shared/token-buckets.ts";
import { type Rate, TokenBuckets } from "../../shared/token-buckets.ts";

/** Options for {@link rateLimit}. */
export interface RateLimitOptions {
  /** The live `gateway.auth.rateLimit` (`null` = unlimited). */
  rate: () => Rate | null;
  log: Logger;
  /** Cluster hook: buckets shared by every instance (`src/cluster/`); local ones when absent. */
  shared?: { take(key: string, rate: Rate): Promise<{ ok: boolean; retryAfterS: number }> };
}

/**
 * Middleware (after auth): 429 with `Retry-After` (whole seconds) once a token's bucket is
 * empty. Anonymous requests are not limited: rate limits come with auth.
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<AppEnv> {
  const buckets = new TokenBuckets();
  return async function rateLimit(c, next) {
    const rate = options.rate();
    const name = c.get("identity")?.tokenName ?? null;
    if (rate !== null && name !== null) {
      const shared = options.shared ? await options.shared.take(name, rate) : null;
      const waitMs = shared
        ? (shared.ok ? 0 : shared.retryAfterS * 1000)
        : buckets.take(name, rate);
      if (waitMs > 0) {
        const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
        options.log.debug("rate limited", { tokenName: name, retryAfter });
        throw new GatewayError(
          "RATE_LIMITED",
          `token "${name}" is over its rate limit of ${rate.perMinute}/min`,
          { data: { retryAfter } },
        );
      }
    }
    await next();
  };
}
