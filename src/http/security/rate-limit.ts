/**
 * Per-token rate limits: a token bucket per token name that holds `burst` requests and refills
 * at `perMinute`. Buckets exist only for configured tokens, so memory stays bounded.
 */
import { GatewayError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";

export { type Rate, TokenBuckets } from "../../shared/token-buckets.ts";
import { type Rate, TokenBuckets } from "../../shared/token-buckets.ts";

/** Options for {@link rateCheck}. */
export interface RateLimitOptions {
  /** The live `gateway.auth.rateLimit` (`null` = unlimited). */
  rate: () => Rate | null;
  log: Logger;
  /** Cluster hook: buckets shared by every instance (`src/cluster/`); local ones when absent. */
  shared?: { take(key: string, rate: Rate): Promise<{ ok: boolean; retryAfterS: number }> };
}

/**
 * The per-token request rate as a plain check: resolves when the token may go on, throws
 * `RATE_LIMITED` (with `retryAfter`) when it is over: the chain's last check (`chain.ts`).
 */
export function rateCheck(
  options: RateLimitOptions,
): (tokenName: string | null) => Promise<void> | undefined {
  const buckets = new TokenBuckets();
  const refuse = (name: string, rate: Rate, waitMs: number): never => {
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    options.log.debug("rate limited", { tokenName: name, retryAfter });
    throw new GatewayError(
      "RATE_LIMITED",
      `token "${name}" is over its rate limit of ${rate.perMinute}/min`,
      { data: { retryAfter } },
    );
  };
  // The cluster's take in a function of its own: its closure's scope is then made only for the
  // requests that wait on the cluster, not for every request.
  const takeShared = (
    shared: NonNullable<RateLimitOptions["shared"]>,
    name: string,
    rate: Rate,
  ): Promise<void> =>
    shared.take(name, rate).then((taken) => {
      const waitMs = taken.ok ? 0 : taken.retryAfterS * 1000;
      if (waitMs > 0) refuse(name, rate, waitMs);
    });
  return function checkRate(name) {
    const rate = options.rate();
    if (rate === null || name === null) return undefined;
    if (options.shared) return takeShared(options.shared, name, rate);
    const waitMs = buckets.take(name, rate);
    if (waitMs > 0) refuse(name, rate, waitMs);
    return undefined;
  };
}
