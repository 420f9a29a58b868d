/**
 * The restart policy of one upstream as state: consecutive failures, the restart it has
 * scheduled, and whether it gave up. The delay doubles per consecutive failure up to
 * `maxDelay`; the count resets when a failure comes `resetAfter` or more after the previous one
 * (or, for the first, after the connection came up); after `maxRestarts` failures in a row no
 * restart is scheduled.
 *
 * Measured failure to failure, not from when the restarted connection came up: a server that
 * crashes once a minute with `resetAfter: 1m` was up a little less than a minute each time (the
 * outage is part of the minute), so its delay used to double on every crash, and so did the
 * outage. A crash loop still backs off: its failures are at most `maxDelay` plus a start apart.
 */
import type { ServerConfig } from "../config/mod.ts";

/** Restart bookkeeping of one upstream. */
export class Backoff {
  /** Consecutive failures so far. */
  failures = 0;
  /** Restarts begun (scheduled ones and immediate reconnects). */
  restarts = 0;
  /** True once `maxRestarts` consecutive failures made it stop retrying. */
  gaveUp = false;
  /** When the scheduled restart is due (epoch ms), 0 when none is. */
  nextRetryAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastFailureAt: number | null = null;
  readonly #policy: ServerConfig["restart"];

  constructor(policy: ServerConfig["restart"]) {
    this.#policy = policy;
  }

  /**
   * After a failure: schedules `restart` (unless `halted` or given up) and answers the fields
   * the `upstream down` log line carries. `upSince` is when the lost connection came up, when
   * it was up.
   */
  failed(halted: boolean, upSince: number | null, restart: () => void): Record<string, unknown> {
    const { initialDelayMs, maxDelayMs, maxRestarts, resetAfterMs } = this.#policy;
    const now = Date.now();
    const since = this.#lastFailureAt ?? upSince;
    if (since !== null && now - since >= resetAfterMs) this.failures = 0;
    this.#lastFailureAt = now;
    this.cancel();
    if (halted) return { shuttingDown: true };
    if (maxRestarts !== null && this.failures >= maxRestarts) {
      this.gaveUp = true;
      return { gaveUp: true, failures: this.failures };
    }
    const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** this.failures);
    this.failures++;
    this.nextRetryAt = Date.now() + delay;
    this.#timer = setTimeout(() => {
      this.restarts++;
      restart();
    }, delay);
    (this.#timer as { unref?: () => void }).unref?.();
    return { retryInMs: delay, failures: this.failures };
  }

  /** A connection came up. */
  up(): void {
    this.gaveUp = false;
  }

  /** Drops the scheduled restart, if any. */
  cancel(): void {
    clearTimeout(this.#timer);
    this.nextRetryAt = 0;
  }
}
