/**
 * The restart policy of one upstream as state: consecutive failures, the restart it has
 * scheduled, and whether it gave up. The delay doubles per consecutive failure up to
 * `maxDelay`; the count resets once a connection stayed up `resetAfter`; after `maxRestarts`
 * failures in a row no restart is scheduled.
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
    if (upSince !== null && Date.now() - upSince >= resetAfterMs) this.failures = 0;
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
