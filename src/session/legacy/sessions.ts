/**
 * The 2025 door's object: its sessions over HTTP — streamable HTTP (`/mcp`, ./streamable.ts) and
 * legacy SSE (`/sse`, ./sse-sessions.ts), each a transport connected to its own session server —
 * and the one `--stdio` client. As a {@link Door} it is the last one asked: it answers what no
 * other door takes (an `initialize`, a request on one of its sessions, and the errors). The
 * registry owns the session table: it expires idle sessions, closes those a reload takes the
 * right from, and closes everything on shutdown.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { GatewayConfig } from "../../config/mod.ts";
import { configuredToken, type Gateway, profileConfig } from "../../gateway/mod.ts";
import { callerOf, type Door, type RequestIdentity } from "../door.ts";
import { sessionHandle } from "../../shared/session-handle.ts";
import { MemoryEventStore } from "./event-store.ts";
import { expiredSessions, idleLimits } from "./idle.ts";
import { attachSession, createSessionServer } from "./server.ts";
import { SessionShares } from "./session-share.ts";
import {
  type Session,
  type SessionRegistryOptions,
  type SessionTable,
  shareRefusal,
} from "./session-table.ts";
import { handleSseMessage, openSse } from "./sse-sessions.ts";
import { handleMcp } from "./streamable.ts";

/** One open session as an operator sees it: never its id, which would let one post on it. */
export interface SessionInfo {
  /** Its handle: a short hash of its id, as the audit log names it. */
  handle: string;
  kind: "streamable-http" | "sse";
  tokenName: string | null;
  profile: string | null;
  /** Epoch ms it opened, and it last saw a request or an answer. */
  openedAt: number;
  lastSeen: number;
  /** Requests it is handling now, and GET streams it holds open. */
  inFlight: number;
  streams: number;
}

/** The 2025 door: all its sessions (see the module comment). */
export class SessionRegistry implements Door<true> {
  readonly #table: SessionTable;
  #stdio: Server | undefined;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #unobserve: () => void;

  constructor(gateway: Gateway, opts: SessionRegistryOptions) {
    this.#table = {
      gateway,
      opts,
      sessions: new Map(),
      events: new MemoryEventStore(
        undefined,
        undefined,
        () => gateway.config.gateway.streamBufferBytes,
      ),
      shares: new SessionShares(),
    };
    this.#unobserve = gateway.observeConfig((prev, next) => this.#closeRemoved(prev, next));
    const { bareMs } = idleLimits(this.#table);
    if (bareMs > 0) {
      // Sweep a few times per (short) idle period; unref'd so the timer never keeps the process
      // alive. The limits themselves are read at each sweep: a reload applies to the next.
      this.#sweeper = setInterval(() => {
        const n = this.expireIdle();
        if (n > 0) gateway.log.info("idle sessions closed", { count: n });
      }, Math.min(60_000, Math.max(250, Math.floor(bareMs / 4))));
      (this.#sweeper as { unref?: () => void }).unref?.();
    }
  }

  /** Number of open sessions. */
  get size(): number {
    return this.#table.sessions.size;
  }

  /** Counts by kind, for metrics. */
  counts(): Record<string, number> {
    const out: Record<string, number> = { "streamable-http": 0, sse: 0 };
    for (const s of this.#table.sessions.values()) out[s.kind] = (out[s.kind] ?? 0) + 1;
    return out;
  }

  /** Every open session (not the `--stdio` client), oldest first. */
  list(): SessionInfo[] {
    return [...this.#table.sessions.values()].map((s) => infoOf(s, sessionHandle(s.id)))
      .sort((a, b) => a.openedAt - b.openedAt);
  }

  /**
   * Ends the session whose handle is `handle` (an operator's): its streams close and its next
   * request is answered 404, as for an expired session. Returns what it ended, or `null`.
   */
  end(handle: string): SessionInfo | null {
    const sessions = this.#table.sessions;
    for (const s of sessions.values()) {
      if (sessionHandle(s.id) !== handle) continue;
      sessions.delete(s.id);
      void s.close().catch(() => {});
      return infoOf(s, handle);
    }
    return null;
  }

  /** Takes every request: the doors asked before it decline what is theirs to decline. */
  accepts(): true {
    return true;
  }

  /** Serves `POST|GET|DELETE /mcp` for `who`. */
  fetch(req: Request, who: RequestIdentity): Promise<Response> {
    return handleMcp(this.#table, req, who);
  }

  /**
   * Admits one 2026-07-28 `subscriptions/listen` stream of `who` as a session of its token:
   * what ends its share, or the answer refusing it.
   */
  admitStream(who: { readonly tokenName: string | null }): (() => void) | Response {
    return shareRefusal(this.#table, who) ?? this.#table.shares.hold(who.tokenName);
  }

  /** Handles `GET /sse`: opens a legacy session. */
  openSse(who: RequestIdentity, messagePath: string): Promise<Response> {
    return openSse(this.#table, who, messagePath);
  }

  /** Handles `POST /message?sessionId=…`. */
  handleSseMessage(
    req: Request,
    sessionId: string | null,
    who: RequestIdentity,
  ): Promise<Response> | Response {
    return handleSseMessage(this.#table, req, sessionId, who);
  }

  /**
   * Serves the one `--stdio` client over `transport`, as the local caller narrowed to `profile`.
   * Its session is not in the table (it never idles out, and a reload cannot close it: the
   * client owns the pipe); {@link closeAll} closes it.
   */
  async serveStdio(transport: Transport, profile: string | null): Promise<void> {
    const gateway = this.#table.gateway;
    // The parent process, unauthenticated: no token, every tool the profile offers.
    const caller = callerOf(gateway, { tokenName: null, toolGlobs: null, profile });
    const { server } = createSessionServer(gateway, attachSession(gateway, () => caller));
    this.#stdio = server;
    await server.connect(transport);
  }

  /**
   * Closes the sessions idle past their limit (`./idle.ts`) — none while a request is being
   * handled or a response stream is open; returns how many.
   */
  expireIdle(now = Date.now()): number {
    const expired = expiredSessions(this.#table, now);
    for (const s of expired) {
      void s.close().catch(() => {});
      this.#table.sessions.delete(s.id);
    }
    return expired.length;
  }

  /**
   * After a reload: closes the sessions of every token the new config no longer lists or lists
   * with another value (rotated: the old secret must not keep an open stream); their next request
   * with the old value gets 401. Identities that were never in the token list are left alone.
   * Sessions of a profile the reload removed, or that their token may no longer use, are closed
   * too (a narrowed profile re-scopes its sessions instead: `./rescope.ts`).
   */
  #closeRemoved(prev: GatewayConfig, next: GatewayConfig): void {
    const { gateway, sessions } = this.#table;
    for (const s of [...sessions.values()]) {
      const why = closeReason(prev, next, s);
      if (why === null) continue;
      sessions.delete(s.id);
      void s.close().catch(() => {});
      gateway.log.info(`${why}; session closed`, {
        kind: s.kind,
        tokenName: s.tokenName,
        profile: s.profile,
      });
    }
  }

  /** Closes every session (shutdown). */
  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#unobserve();
    const sessions = this.#table.sessions;
    const all = [...sessions.values()];
    sessions.clear();
    const closing = all.map((s) => s.close().catch(() => {}));
    if (this.#stdio) closing.push(this.#stdio.close().catch(() => {}));
    await Promise.all(closing);
  }
}

function infoOf(s: Session, handle: string): SessionInfo {
  const a = s.activity;
  return {
    handle,
    kind: s.kind,
    tokenName: s.tokenName,
    profile: s.profile,
    openedAt: a.openedAt,
    lastSeen: a.lastSeen,
    inFlight: a.pending.size,
    streams: a.streams,
  };
}

/** Why a reload from `prev` to `next` ends session `s`, or `null` when it survives. */
function closeReason(
  prev: GatewayConfig,
  next: GatewayConfig,
  s: { readonly tokenName: string | null; readonly profile: string | null },
): string | null {
  const before = configuredToken(prev, s.tokenName);
  const after = configuredToken(next, s.tokenName);
  if (before && after?.token !== before.token) return "token removed or rotated";
  if (s.profile === null) return null;
  if (!profileConfig(next, s.profile)) return "profile removed";
  const allowed = after?.profiles ?? null;
  if (allowed !== null && !allowed.includes(s.profile)) return "profile no longer allowed";
  return null;
}
