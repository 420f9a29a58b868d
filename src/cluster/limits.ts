/**
 * Per-token rate limits shared by every instance: one token bucket per key in Redis, taken
 * atomically by one Lua script per request (one round trip), timed by Redis's own clock so
 * instances with skewed clocks agree. While Redis is unreachable each instance falls back to
 * its own buckets — the limit then holds per instance, not per deployment, which is the price
 * of never refusing service because the shared store is down (fail-open). A Redis that still
 * holds its connection but stops answering costs one `timeout` per limiter, not one per call:
 * after a failed take the limiter counts locally for {@link BACKOFF_MS} before asking again.
 */
import type { Redis } from "ioredis";
import { TokenBuckets } from "../shared/token-buckets.ts";
import type { RedisLink } from "./redis.ts";

/** A rate: `perMinute` sustained, up to `burst` at once. */
export interface BucketRate {
  readonly perMinute: number;
  readonly burst: number;
}

/** The answer of one take: allowed, or how many whole seconds until it would be. */
export interface TakeResult {
  readonly ok: boolean;
  readonly retryAfterS: number;
}

/** Where buckets live: Redis, or this process. */
export interface BucketStore {
  take(key: string, rate: BucketRate): Promise<TakeResult>;
}

/** Takes one from bucket KEYS[1]; returns 0 when allowed, else the ms until one is. */
const TAKE = `
local perMs = tonumber(ARGV[1]) / 60000
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * perMs)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / perMs) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / perMs) + 1000)
return wait
`;

/** How long a limiter counts locally after a take that failed or timed out. */
export const BACKOFF_MS = 5_000;

type WithTake = Redis & {
  mcpgwTake(key: string, perMinute: number, burst: number): Promise<number>;
};

/** Buckets in this process only (the same buckets as a single instance's). */
export class LocalBuckets implements BucketStore {
  #buckets = new TokenBuckets();

  take(key: string, rate: BucketRate, now = Date.now()): Promise<TakeResult> {
    return Promise.resolve(resultOf(this.#buckets.take(key, rate, now)));
  }
}

function resultOf(waitMs: number): TakeResult {
  return waitMs <= 0
    ? { ok: true, retryAfterS: 0 }
    : { ok: false, retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/** Buckets in Redis, with {@link LocalBuckets} while the link is degraded. */
export class SharedRateLimiter implements BucketStore {
  readonly #link: RedisLink;
  readonly #redis: WithTake;
  readonly #local = new LocalBuckets();
  readonly #prefix: string;
  /** Redis round trips made (bench and tests read it). */
  roundTrips = 0;
  /** Until when takes stay local after a failure (epoch ms). */
  #localUntil = 0;

  constructor(link: RedisLink, prefix: string) {
    this.#link = link;
    this.#prefix = prefix;
    link.command.defineCommand("mcpgwTake", { numberOfKeys: 1, lua: TAKE });
    this.#redis = link.command as WithTake;
  }

  async take(key: string, rate: BucketRate): Promise<TakeResult> {
    if (this.#link.degraded || Date.now() < this.#localUntil) return this.#local.take(key, rate);
    try {
      this.roundTrips++;
      const waitMs = await this.#redis.mcpgwTake(
        `${this.#prefix}rate:${key}`,
        rate.perMinute,
        rate.burst,
      );
      return resultOf(Number(waitMs));
    } catch (err) {
      this.#link.failed(err);
      this.#localUntil = Date.now() + BACKOFF_MS;
      return this.#local.take(key, rate);
    }
  }
}
