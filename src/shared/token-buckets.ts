/**
 * The one in-process token bucket: per-request limits (`http/security/rate-limit.ts`), per-call
 * limits (`http/security/call-limits.ts`) and the cluster's local fallback (`cluster/limits.ts`)
 * all take from buckets of this kind. The cluster's shared buckets run the same arithmetic in a
 * Redis script.
 */

/** A rate: `perMinute` sustained, up to `burst` at once. */
export interface Rate {
  readonly perMinute: number;
  readonly burst: number;
}

/** Token buckets keyed by token name. */
export class TokenBuckets {
  #buckets = new Map<string, { tokens: number; at: number }>();

  /** Takes one request from `key`'s bucket; returns 0 when allowed, else the ms until one is. */
  take(key: string, rate: Rate, now = Date.now()): number {
    const perMs = rate.perMinute / 60_000;
    const b = this.#buckets.get(key) ?? { tokens: rate.burst, at: now };
    b.tokens = Math.min(rate.burst, b.tokens + (now - b.at) * perMs);
    b.at = now;
    this.#buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - b.tokens) / perMs);
  }
}
