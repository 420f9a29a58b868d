/** An upstream's state in words, for errors and `/readyz`. */
import type { UpstreamState } from "./types.ts";

/** What {@link statusText} reads. */
export interface StatusFacts {
  state: UpstreamState;
  lastError: string | null;
  gaveUp: boolean;
  failures: number;
  /** Epoch ms of the next restart, 0 when none is scheduled. */
  nextRetryAt: number;
}

/**
 * `is down: exited with code 1: …; next restart in 3s`, `…; gave up after 5 restarts`,
 * `is down: …; restarting now`, `is up`.
 */
export function statusText(f: StatusFacts): string {
  const why = f.lastError ? `: ${f.lastError}` : "";
  if (f.state === "starting" && why) return `is down${why}; restarting now`;
  if (f.state !== "down") return `is ${f.state}${why}`;
  if (f.gaveUp) {
    return `is down${why}; gave up after ${f.failures} restart${f.failures === 1 ? "" : "s"}`;
  }
  const wait = f.nextRetryAt - Date.now();
  return wait > 0 ? `is down${why}; next restart in ${Math.ceil(wait / 1000)}s` : `is down${why}`;
}
