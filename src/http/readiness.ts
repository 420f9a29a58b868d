/**
 * What `/readyz` says once the first start is done (before it, and while draining, the
 * lifecycle answers 503 itself). Ready means: every `required: true` server is up, and — when
 * any server is configured and enabled — at least one is up. A gateway with 0 of 3 upstreams
 * up serves nothing an agent came for, so a load balancer must not send it traffic.
 */
import type { Upstream } from "../upstream/mod.ts";

/** One enabled server that is not up, as `/readyz` lists it. */
export interface DownServer {
  server: string;
  /** `down`, or `starting` while a restart attempt runs. */
  state: string;
  /** Why, e.g. `exited with code 1: Error: GITHUB_TOKEN is not set` (absent with auth on). */
  reason?: string;
  required: boolean;
  /** Milliseconds until the next restart, when one is scheduled. */
  retryInMs?: number;
  /** True when `restart.maxRestarts` was reached. */
  gaveUp?: boolean;
}

/** The readiness verdict and every enabled server that is not up. */
export interface Readiness {
  ready: boolean;
  /** Why not ready (absent when ready). */
  reason?: string;
  up: number;
  total: number;
  down: DownServer[];
}

/**
 * Judges readiness from the upstreams' current states. `reasons: false` leaves out each down
 * server's reason: `/readyz` answers without auth, and a reason quotes what the server wrote
 * to stderr, so with auth on it is only shown behind a token (logs, status page).
 */
export function readiness(
  upstreams: readonly Upstream[],
  options: { reasons: boolean; now?: number },
): Readiness {
  const now = options.now ?? Date.now();
  const enabled = upstreams.filter((u) => u.config.enabled);
  const up = enabled.filter((u) => u.state === "up").length;
  const down = enabled.filter((u) => u.state !== "up").map((u): DownServer => {
    const next = u.nextRetryAt;
    return {
      server: u.name,
      state: u.state,
      ...(options.reasons ? { reason: u.lastError ?? u.state } : {}),
      required: u.config.required,
      ...(next !== null ? { retryInMs: Math.max(0, next - now) } : {}),
      ...(u.gaveUp ? { gaveUp: true } : {}),
    };
  });
  const required = down.filter((d) => d.required).map((d) => JSON.stringify(d.server));
  const total = enabled.length;
  const reason = required.length > 0
    ? `required server${required.length > 1 ? "s" : ""} ${required.join(", ")} not up`
    : total > 0 && up === 0
    ? `no server is up (0 of ${total})`
    : undefined;
  return { ready: reason === undefined, ...(reason ? { reason } : {}), up, total, down };
}
