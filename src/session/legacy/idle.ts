/**
 * When an idle 2025 session is ended. A client that connects, asks and goes without `DELETE`
 * (a one-shot CLI run, an SDK client's `close()`) leaves its session behind; kept for the whole
 * `limits.sessionIdle` such sessions fill the table and each token's share. So a session that
 * holds nothing — no open stream, no resource subscription, no running task of its own — ends
 * `limits.sessionIdleShort` after its last request; one that holds something keeps the long
 * limit (its client may still be told of an update). A legacy SSE session's one event stream is
 * open for the session's whole life, so it holds the long limit too; closing the stream ends it.
 * The same numbers answer a refused client: how long the oldest idle session has been idle and
 * when it will be ended (`Retry-After`).
 */
import { isIdle } from "./activity.ts";
import type { Session, SessionTable } from "./session-table.ts";

/** The wait advised when no idle session will free a place (seconds). */
const NO_IDLE_RETRY_S = 60;

/** The idle limits of a table, in ms (0 = that limit is off). */
export interface IdleLimits {
  /** For a session holding a subscription, a task or its event stream. */
  readonly holdingMs: number;
  /** For a session holding nothing; never longer than {@link holdingMs}. */
  readonly bareMs: number;
}

/** The table's idle limits now (a reload applies to the next sweep). */
export function idleLimits(table: SessionTable): IdleLimits {
  const holdingMs = table.opts.idleMs ?? table.gateway.config.gateway.sessionIdleMs;
  if (holdingMs === 0) return { holdingMs: 0, bareMs: 0 };
  const short = table.gateway.config.gateway.sessionIdleShortMs;
  return { holdingMs, bareMs: short > 0 ? Math.min(short, holdingMs) : holdingMs };
}

/** How long `s` may stay idle under `limits` (0 = forever). */
export function idleLimitOf(table: SessionTable, s: Session, limits: IdleLimits): number {
  return holdsSomething(table, s) ? limits.holdingMs : limits.bareMs;
}

/** Whether `s` holds what keeps it past the short limit (see the module comment). */
function holdsSomething(table: SessionTable, s: Session): boolean {
  return s.kind === "sse" || s.link.subscriptions.size > 0 || table.gateway.tasks.runsFor(s.link);
}

/** The sessions of `table` idle past their limit at `now`. */
export function expiredSessions(table: SessionTable, now: number): Session[] {
  const limits = idleLimits(table);
  if (limits.holdingMs === 0) return [];
  const out: Session[] = [];
  for (const s of table.sessions.values()) {
    const limit = idleLimitOf(table, s, limits);
    if (isIdle(s.activity, now - limit)) out.push(s);
  }
  return out;
}

/** What a refused client is told: the oldest idle session's age, and when to retry. */
export interface IdleRelease {
  /** How long the oldest idle session counted has been idle (ms), or `null`: none is idle. */
  readonly oldestIdleMs: number | null;
  /** Seconds until the first counted session is ended for idling (at least 1). */
  readonly retryAfterS: number;
}

/** {@link IdleRelease} over the sessions of `table` that `counted` keeps. */
export function idleRelease(
  table: SessionTable,
  counted: (s: Session) => boolean,
  now = Date.now(),
): IdleRelease {
  const limits = idleLimits(table);
  let oldest: number | null = null;
  let soonest = Infinity;
  for (const s of table.sessions.values()) {
    if (!counted(s) || !isIdle(s.activity, now + 1)) continue;
    const idleMs = now - s.activity.lastSeen;
    if (oldest === null || idleMs > oldest) oldest = idleMs;
    const limit = limits.holdingMs === 0 ? 0 : idleLimitOf(table, s, limits);
    if (limit > 0) soonest = Math.min(soonest, limit - idleMs);
  }
  const retryAfterS = soonest === Infinity
    ? NO_IDLE_RETRY_S
    : Math.max(1, Math.ceil(soonest / 1000));
  return { oldestIdleMs: oldest, retryAfterS };
}
