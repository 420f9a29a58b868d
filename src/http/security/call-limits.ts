/**
 * Per-token limits on tool calls, as the {@link CallGate} the core consults on every call: a
 * token bucket of `gateway.auth.rateLimit.perMinute` / `burst` calls, and at most
 * `gateway.auth.rateLimit.concurrency` upstream calls in flight. A batch of 50 calls, or an
 * `execute` script making 50 `mcp.call`s, is 50 calls here (plus one for `execute` itself).
 * Calls to the gateway's own tools (`execute`, macros, meta-tools) count against the rate but
 * hold no concurrency slot: the upstream calls they make do, and a script could not call
 * anything under `concurrency: 1` otherwise. Anonymous callers (no auth) are not limited.
 */
import type { Caller, CallGate, GatedCall } from "../../gateway/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { type Rate, TokenBuckets } from "./rate-limit.ts";

/** A call rate with an optional concurrency cap (`null` = none). */
export interface CallRate extends Rate {
  readonly concurrency: number | null;
}

const NOTHING = () => {};

/** The gate enforcing the live `gateway.auth.rateLimit` per token on calls. */
export class TokenCallLimits implements CallGate {
  #buckets = new TokenBuckets();
  #inFlight = new Map<string, number>();
  readonly #rate: () => CallRate | null;
  readonly #log: Logger;

  constructor(rate: () => CallRate | null, log: Logger) {
    this.#rate = rate;
    this.#log = log;
  }

  /** Upstream calls `tokenName` has in flight (tests, metrics). */
  inFlight(tokenName: string): number {
    return this.#inFlight.get(tokenName) ?? 0;
  }

  acquire(caller: Caller, call: GatedCall): () => void {
    const rate = this.#rate();
    const name = caller.tokenName;
    if (rate === null || name === null) return NOTHING;
    const held = this.#inFlight.get(name) ?? 0;
    const capped = !call.local && rate.concurrency !== null;
    if (capped && held >= rate.concurrency!) {
      this.#log.debug("call refused: concurrency", { tokenName: name, tool: call.tool });
      throw new GatewayError(
        "RATE_LIMITED",
        `token "${name}" already has ${held} tool calls in flight, its limit ` +
          `(gateway.auth.rateLimit.concurrency = ${rate.concurrency}); retry after 1s`,
        { data: { limit: "concurrency", retryAfter: 1 } },
      );
    }
    const waitMs = this.#buckets.take(name, rate);
    if (waitMs > 0) {
      const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
      this.#log.debug("call refused: rate", { tokenName: name, tool: call.tool, retryAfter });
      throw new GatewayError(
        "RATE_LIMITED",
        `token "${name}" is over its call rate limit (gateway.auth.rateLimit: ` +
          `${rate.perMinute}/min, burst ${rate.burst}); retry after ${retryAfter}s`,
        { data: { limit: "rate", retryAfter } },
      );
    }
    if (!capped) return NOTHING;
    this.#inFlight.set(name, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#inFlight.get(name) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(name, left);
      else this.#inFlight.delete(name);
    };
  }
}
