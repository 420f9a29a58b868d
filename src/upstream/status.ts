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
  /** Epoch ms the current start attempt began (while starting). */
  startedAt?: number;
  /** The starting process's last words on stderr, if any. */
  said?: string;
}

/**
 * `is down: exited with code 1: …; next restart in 3s`, `…; gave up after 5 restarts`,
 * `is down: …; restarting now`, `is starting: not up after 1.2s; stderr: …`, `is up`.
 */
export function statusText(f: StatusFacts): string {
  const why = f.lastError ? `: ${f.lastError}` : "";
  if (f.state === "starting" && why) return `is down${why}; restarting now`;
  if (f.state === "starting" && f.startedAt !== undefined) {
    // A first start still under way: how long so far, and what the process said meanwhile.
    const secs = (Math.max(0, Date.now() - f.startedAt) / 1000).toFixed(1);
    return `is starting: not up after ${secs}s${f.said ? `; stderr: ${f.said}` : ""}`;
  }
  if (f.state !== "down") return `is ${f.state}${why}`;
  if (f.gaveUp) {
    return `is down${why}; gave up after ${f.failures} restart${f.failures === 1 ? "" : "s"}`;
  }
  const wait = f.nextRetryAt - Date.now();
  return wait > 0 ? `is down${why}; next restart in ${Math.ceil(wait / 1000)}s` : `is down${why}`;
}
