/**
 * The table of a gateway's 2025 sessions (streamable HTTP and legacy SSE) and what every
 * handler of the door shares about it: one {@link SessionTable} per registry, built once, so a
 * request allocates nothing to reach it. The handlers are `./streamable.ts` and
 * `./sse-sessions.ts`; the registry (`./sessions.ts`) owns the table's lifecycle.
 */
import type { Gateway } from "../../gateway/mod.ts";
import type { SessionLink } from "../../gateway/passthrough/mod.ts";
import { callerOf, type RequestIdentity } from "../door.ts";
import type { Activity } from "./activity.ts";
import type { MemoryEventStore } from "./event-store.ts";
import { idleRelease } from "./idle.ts";
import type { SessionShares } from "./session-share.ts";
import { attachSession } from "./server.ts";
import type { StreamableSession } from "./streamable-session.ts";
import { jsonError, type SseSessionTransport } from "./sse.ts";
import {
  guardOptions,
  type StreamGuardOptions,
  type StreamKind,
  type StreamReport,
} from "../../shared/stream-guard.ts";

/** What every open session is, whatever its transport. */
interface OpenSession {
  readonly id: string;
  readonly link: SessionLink;
  readonly tokenName: string | null;
  /** The profile whose endpoint opened it; its requests must come to the same endpoint. */
  readonly profile: string | null;
  /**
   * Who last presented a request on the session (same token name, perhaps another OAuth token
   * of the subject): the session's standing caller follows it. Each request itself is judged by
   * its own token (`authInfoOf`).
   */
  readonly standing: { who: RequestIdentity };
  /** Requests in flight and open streams; a session is never idle while any remain. */
  readonly activity: Activity;
  /** Ends it: its server closes (and its streams with it). */
  close(): Promise<void>;
}

/** A legacy SSE session: its server is built when it opens and lives as long as it. */
export interface SseSession extends OpenSession {
  readonly kind: "sse";
  readonly transport: SseSessionTransport;
}

/** One open session. */
export type Session = StreamableSession | SseSession;

/** Options for the session registry (`./sessions.ts`). */
export interface SessionRegistryOptions {
  maxSessions: number;
  maxBodyBytes: number;
  pageSize?: number;
  /** Close sessions idle this long (default: the config's `limits.sessionIdle`; 0 = never). */
  idleMs?: number;
  /** Where event streams report drops, closures and the bytes they hold (metrics). */
  streams?: StreamReport;
}

/** The open sessions and what their handlers share. */
export interface SessionTable {
  readonly gateway: Gateway;
  readonly opts: SessionRegistryOptions;
  /** Open sessions by id. */
  readonly sessions: Map<string, Session>;
  /** One replay store for every session, each seeing only its own events. */
  readonly events: MemoryEventStore;
  /** The listen streams counted beside the sessions, and each token's share. */
  readonly shares: SessionShares;
}

/**
 * How an event stream opened by `who` is guarded: the live `limits.streamBuffer` bound (plus
 * `room`, a resume's replay), and closed when `who`'s token expires.
 */
export function streamGuard(
  table: SessionTable,
  stream: StreamKind,
  who: RequestIdentity,
  room = 0,
): Omit<StreamGuardOptions, "onEnd"> {
  const max = table.gateway.config.gateway.streamBufferBytes + room;
  return guardOptions(stream, max, who.expiresAt, table.opts.streams);
}

/**
 * The refusal of a new session or listen stream for `who`, or `null`: `503` when the table is
 * full, `429` past the token's share, each naming how long the oldest idle session that fills it
 * has been idle and, in `Retry-After`, when the first of them will be ended (`./idle.ts`).
 */
export function shareRefusal(
  table: SessionTable,
  who: { readonly tokenName: string | null },
): Response | null {
  const perToken = table.gateway.config.gateway.maxSessionsPerToken;
  const limits = { maxSessions: table.opts.maxSessions, perToken };
  const refused = table.shares.refusal(table.sessions, who.tokenName, limits);
  if (refused === null) return null;
  const of = refused.of;
  const release = idleRelease(table, (s) => of === null || s.tokenName === of);
  const idle = release.oldestIdleMs === null
    ? "none of them is idle"
    : `the oldest idle one has been idle ${Math.round(release.oldestIdleMs / 1000)}s and is ` +
      `ended in ${release.retryAfterS}s (gateway.limits.sessionIdleShort, sessionIdle)`;
  const close = "; end a session (DELETE /mcp) before opening another";
  return jsonError(refused.status, -32000, `${refused.message}; ${idle}${close}`, {
    "Retry-After": String(release.retryAfterS),
  });
}

/**
 * The link of a new session `sessionId`: its standing caller is the one who last presented a
 * request on it (`standing.who`).
 */
export function sessionLink(
  table: SessionTable,
  sessionId: string,
  standing: { readonly who: RequestIdentity },
): SessionLink {
  const gateway = table.gateway;
  const id = () => sessionId;
  return attachSession(gateway, () => callerOf(gateway, standing.who, id));
}
