/**
 * Per-token limits on tool calls, as the {@link CallGate} the core consults on every call: a
 * token bucket of `gateway.auth.rateLimit.perMinute` / `burst` calls, and at most
 * `gateway.auth.rateLimit.concurrency` upstream calls in flight. A batch of 50 calls, or an
 * `execute` script making 50 `mcp.call`s, is 50 calls here (plus one for `execute` itself).
 * Calls to the gateway's own tools (`execute`, macros, meta-tools) count against the rate but
 * hold no concurrency slot: the upstream calls they make do, and a script could not call
 * anything under `concurrency: 1` otherwise. Anonymous callers (no auth) are not limited.
 *
 * With `gateway.cluster` the rate is counted in Redis (`shared`, one round trip per call), so
 * a token gets its rate once across all instances. `concurrency` stays per instance: it guards
 * the upstream processes, and each instance runs its own; a shared count would also need a
 * lease that outlives a killed instance's calls, or its slots would leak until they expire.
 */
import type { Caller, CallGate, GatedCall, Release } from "../../gateway/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { type Rate, TokenBuckets } from "./rate-limit.ts";

/** Buckets shared by every instance (`cluster/limits.ts`); resolves whether a call may go. */
export interface SharedCallBuckets {
  take(key: string, rate: Rate): Promise<{ ok: boolean; retryAfterS: number }>;
}

/** A call rate with an optional concurrency cap (`null` = none). */
export interface CallRate extends Rate {
  readonly concurrency: number | null;
}

/** The gate enforcing the live `gateway.auth.rateLimit` per token on calls. */
export class TokenCallLimits implements CallGate {
  #buckets = new TokenBuckets();
  #inFlight = new Map<string, number>();
  readonly #rate: () => CallRate | null;
  readonly #log: Logger;
  readonly #shared: SharedCallBuckets | undefined;

  /** `shared`: the cluster's buckets; without it the rate is counted in this process. */
  constructor(rate: () => CallRate | null, log: Logger, shared?: SharedCallBuckets) {
    this.#rate = rate;
    this.#log = log;
    this.#shared = shared;
  }

  /** Upstream calls `tokenName` has in flight (tests, metrics). */
  inFlight(tokenName: string): number {
    return this.#inFlight.get(tokenName) ?? 0;
  }

  acquire(caller: Caller, call: GatedCall): Release | Promise<Release> {
    const rate = this.#rate();
    const name = caller.tokenName;
    if (rate === null || name === null) return undefined;
    const capped = !call.local && rate.concurrency !== null;
    if (capped) this.#hold(name, rate.concurrency!, call.tool);
    const release = capped ? this.#releaser(name) : undefined;
    if (this.#shared) return this.#takeShared(this.#shared, name, rate, call, release);
    const waitMs = this.#buckets.take(name, rate);
    if (waitMs > 0) this.#refuse(name, rate, call.tool, waitMs, release);
    return release;
  }

  /**
   * The call's take from the cluster's bucket. The slot is held across the round trip, so calls
   * racing it cannot overshoot the cap. A function of its own: its closures' scope is then made
   * only for the calls that wait on the cluster, not for every call.
   */
  #takeShared(
    shared: SharedCallBuckets,
    name: string,
    rate: Rate,
    call: GatedCall,
    release: Release,
  ): Promise<Release> {
    return shared.take(name, rate).then((taken) => {
      if (!taken.ok) this.#refuse(name, rate, call.tool, taken.retryAfterS * 1000, release);
      return release;
    }, (err) => {
      release?.();
      throw err;
    });
  }

  /** Takes a concurrency slot of `name`, or throws the refusal naming the cap. */
  #hold(name: string, cap: number, tool: string): void {
    const held = this.#inFlight.get(name) ?? 0;
    if (held >= cap) {
      this.#log.debug("call refused: concurrency", { tokenName: name, tool });
      throw new GatewayError(
        "RATE_LIMITED",
        `token "${name}" already has ${held} tool calls in flight, its limit ` +
          `(gateway.auth.rateLimit.concurrency = ${cap}); retry after 1s`,
        { data: { limit: "concurrency", retryAfter: 1 } },
      );
    }
    this.#inFlight.set(name, held + 1);
  }

  /** Gives the slot back and throws the rate refusal. */
  #refuse(
    name: string,
    rate: Rate,
    tool: string,
    waitMs: number,
    release: (() => void) | undefined,
  ): never {
    release?.();
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    this.#log.debug("call refused: rate", { tokenName: name, tool, retryAfter });
    throw new GatewayError(
      "RATE_LIMITED",
      `token "${name}" is over its call rate limit (gateway.auth.rateLimit: ` +
        `${rate.perMinute}/min, burst ${rate.burst}); retry after ${retryAfter}s`,
      { data: { limit: "rate", retryAfter } },
    );
  }

  /** The idempotent release of one slot of `name`. */
  #releaser(name: string): () => void {
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
