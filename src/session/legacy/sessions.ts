/**
 * Downstream sessions over HTTP: streamable HTTP (`/mcp`) and legacy SSE (`/sse`), each a
 * transport connected to its own session server. Tracks activity for idle expiry and closes
 * everything on shutdown.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayConfig } from "../../config/mod.ts";
import {
  type Caller,
  configuredToken,
  type Gateway,
  liveCaller,
  profileConfig,
} from "../../gateway/mod.ts";
import type { SessionLink } from "../../gateway/passthrough/mod.ts";
import { authInfoOf } from "./request-caller.ts";
import { createSessionServer } from "./server.ts";
import type { RequestIdentity } from "../door.ts";
import { type Activity, isIdle, newActivity, trackStream } from "./activity.ts";
import { batchRefusal } from "./batch.ts";
import { MemoryEventStore, REPLAY_MAX_BYTES } from "./event-store.ts";
import { cancelledId, FastCalls, isFastCall } from "./fast-call.ts";
import { SessionShares } from "./session-share.ts";
import { SessionTransport } from "./session-transport.ts";
import { jsonError, SseSessionTransport } from "./sse.ts";
import {
  guardOptions,
  guardStream,
  type StreamGuardOptions,
  type StreamKind,
  type StreamReport,
} from "../../shared/stream-guard.ts";

interface Session {
  readonly id: string;
  readonly kind: "streamable-http" | "sse";
  readonly server: Server;
  readonly link: SessionLink;
  readonly transport: WebStandardStreamableHTTPServerTransport | SseSessionTransport;
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
  /** `tools/call` requests answered on the fast path (streamable HTTP only). */
  readonly fast: FastCalls | null;
}

/** Options for {@link SessionRegistry}. */
export interface SessionRegistryOptions {
  maxSessions: number;
  maxBodyBytes: number;
  pageSize?: number;
  /** Close sessions idle this long (default: the config's `limits.sessionIdle`; 0 = never). */
  idleMs?: number;
  /** Where event streams report drops, closures and the bytes they hold (metrics). */
  streams?: StreamReport;
}

/** All HTTP sessions of the gateway. */
export class SessionRegistry {
  #sessions = new Map<string, Session>();
  #gateway: Gateway;
  #opts: SessionRegistryOptions;
  #events = new MemoryEventStore();
  #shares = new SessionShares();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #unobserve: () => void;

  constructor(gateway: Gateway, opts: SessionRegistryOptions) {
    this.#gateway = gateway;
    this.#opts = opts;
    this.#unobserve = gateway.observeConfig((prev, next) => this.#closeRemoved(prev, next));
    const idleMs = opts.idleMs ?? gateway.config.gateway.sessionIdleMs;
    if (idleMs > 0) {
      // Sweep a few times per idle period; unref'd so the timer never keeps the process alive.
      this.#sweeper = setInterval(() => {
        const n = this.expireIdle(idleMs);
        if (n > 0) gateway.log.info("idle sessions closed", { count: n, idleMs });
      }, Math.min(60_000, Math.max(250, Math.floor(idleMs / 4))));
      (this.#sweeper as { unref?: () => void }).unref?.();
    }
  }

  /** Number of open sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Counts by kind, for metrics. */
  counts(): Record<string, number> {
    const out: Record<string, number> = { "streamable-http": 0, sse: 0 };
    for (const s of this.#sessions.values()) out[s.kind] = (out[s.kind] ?? 0) + 1;
    return out;
  }

  /** Handles `POST|GET|DELETE /mcp`. */
  async handleMcp(req: Request, who: RequestIdentity): Promise<Response> {
    const sid = req.headers.get("mcp-session-id");
    if (sid) {
      const s = this.#sessions.get(sid);
      if (!s || s.kind !== "streamable-http") return jsonError(404, -32001, "Session not found");
      if (s.tokenName !== who.tokenName) {
        return jsonError(403, -32003, "Session belongs to another token");
      }
      if (s.profile !== (who.profile ?? null)) {
        return jsonError(404, -32001, "Session not found on this endpoint");
      }
      s.activity.lastSeen = Date.now();
      s.standing.who = who;
      const caller = callerOf(this.#gateway, () => s.id, who);
      const authInfo = authInfoOf(caller);
      const transport = s.transport as WebStandardStreamableHTTPServerTransport;
      if (req.method === "POST" && s.fast) {
        let body: unknown;
        try {
          body = await req.json();
        } catch {
          return jsonError(400, -32700, "Parse error: the body is not JSON");
        }
        const refused = batchRefusal(body, this.#gateway.config.gateway.maxBatch);
        if (refused) return refused;
        if (isFastCall(req, body)) {
          const link = s.link;
          this.#gateway.passthrough.touch(link);
          return await s.fast.run(body, {
            gateway: this.#gateway,
            caller,
            link,
            sessionId: s.id,
            activity: s.activity,
            signal: req.signal,
          });
        }
        if (s.fast.cancel(cancelledId(body))) return new Response(null, { status: 202 });
        return await transport.handleRequest(req, { parsedBody: body, authInfo });
      }
      const response = await transport.handleRequest(req, { authInfo });
      // A GET is a stream held open for server messages; POST answers are counted per request.
      if (req.method !== "GET") return response;
      // A resumed stream starts with its whole replay, written at once (the SDK does not wait
      // for the client): the replay store's own bound is room it gets on top of the buffer.
      const replay = req.headers.has("last-event-id") ? REPLAY_MAX_BYTES : 0;
      return trackStream(s.activity, response, this.#guard("get", who, replay));
    }
    if (req.method !== "POST") {
      return jsonError(400, -32000, "Bad Request: missing Mcp-Session-Id header");
    }
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return jsonError(400, -32700, "Parse error: the body is not JSON");
    }
    const refused = batchRefusal(body, this.#gateway.config.gateway.maxBatch);
    if (refused) return refused;
    const first = Array.isArray(body) ? body[0] : body;
    if (!isInitializeRequest(first)) {
      return jsonError(
        400,
        -32000,
        "Bad Request: no session; the first request must be initialize",
      );
    }
    const share = this.#shareRefusal(who);
    if (share) return share;
    const activity = newActivity();
    const fast = new FastCalls();
    const standing = { who };
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // Replay stays within this session: its events are stored under an owner of its own.
      eventStore: this.#events.scoped(crypto.randomUUID()),
      maxRequestBodySize: this.#opts.maxBodyBytes,
      onsessioninitialized: (id) => {
        this.#sessions.set(id, {
          id,
          kind: "streamable-http",
          server,
          link,
          transport,
          tokenName: who.tokenName,
          profile: who.profile ?? null,
          standing,
          activity,
          fast,
        });
        this.#gateway.log.debug("session opened", {
          kind: "streamable-http",
          tokenName: who.tokenName,
          profile: who.profile ?? null,
        });
      },
      onsessionclosed: (id) => void this.#sessions.delete(id),
    });
    const sessionId = () => transport.sessionId ?? null;
    const { server, link } = createSessionServer(
      this.#gateway,
      () => callerOf(this.#gateway, sessionId, standing.who),
      this.#opts.pageSize === undefined ? {} : { pageSize: this.#opts.pageSize },
    );
    const wire = new SessionTransport(transport, activity, fast.route);
    wire.onclose = () => {
      fast.abortAll();
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
    };
    await server.connect(wire);
    const authInfo = authInfoOf(callerOf(this.#gateway, sessionId, who));
    return await transport.handleRequest(req, { parsedBody: body, authInfo });
  }

  /**
   * How an event stream opened by `who` is guarded: the live `limits.streamBuffer` bound (plus
   * `room`, a resume's replay), and closed when `who`'s token expires.
   */
  #guard(stream: StreamKind, who: RequestIdentity, room = 0): Omit<StreamGuardOptions, "onEnd"> {
    const max = this.#gateway.config.gateway.streamBufferBytes + room;
    return guardOptions(stream, max, who.expiresAt, this.#opts.streams);
  }

  /** The refusal of a new session or listen stream for `who`, or `null` (./session-share.ts). */
  #shareRefusal(who: { readonly tokenName: string | null }): Response | null {
    const perToken = this.#gateway.config.gateway.maxSessionsPerToken;
    const limits = { maxSessions: this.#opts.maxSessions, perToken };
    return this.#shares.refusal(this.#sessions, who.tokenName, limits);
  }

  /**
   * Admits one 2026-07-28 `subscriptions/listen` stream of `who` as a session of its token:
   * what ends its share, or the answer refusing it.
   */
  admitStream(who: { readonly tokenName: string | null }): (() => void) | Response {
    return this.#shareRefusal(who) ?? this.#shares.hold(who.tokenName);
  }

  /** Handles `GET /sse`: opens a legacy session. */
  async openSse(who: RequestIdentity, messagePath: string): Promise<Response> {
    const share = this.#shareRefusal(who);
    if (share) return share;
    const transport = new SseSessionTransport(messagePath);
    const standing = { who };
    const sessionId = () => transport.sessionId;
    const { server, link } = createSessionServer(
      this.#gateway,
      () => callerOf(this.#gateway, sessionId, standing.who),
    );
    const session: Session = {
      id: transport.sessionId,
      kind: "sse",
      server,
      link,
      transport,
      tokenName: who.tokenName,
      profile: who.profile ?? null,
      standing,
      // The event stream alone does not keep a legacy session alive (it is open for the
      // session's whole life): it idles out like a streamable one, counting messages posted
      // and answers sent; a request in flight keeps it.
      activity: newActivity(),
      fast: null,
    };
    this.#sessions.set(session.id, session);
    this.#gateway.log.debug("session opened", { kind: "sse", tokenName: who.tokenName });
    // Its one event stream carries answers too: only progress and log messages may be dropped.
    const response = guardStream(transport.response(), this.#guard("sse", who));
    const wire = new SessionTransport(transport, session.activity);
    await server.connect(wire);
    wire.onclose = chain(wire.onclose, () => this.#sessions.delete(session.id));
    return response;
  }

  /** Handles `POST /message?sessionId=…`. */
  handleSseMessage(
    req: Request,
    sessionId: string | null,
    who: RequestIdentity,
  ): Promise<Response> | Response {
    const s = sessionId ? this.#sessions.get(sessionId) : undefined;
    if (!s || s.kind !== "sse") return jsonError(404, -32001, "Session not found");
    if (s.tokenName !== who.tokenName) {
      return jsonError(403, -32003, "Session belongs to another token");
    }
    s.activity.lastSeen = Date.now();
    // `/message` names no profile: the session's own (the `/sse/<profile>` it was opened on)
    // narrows every request posted to it.
    const asSession = { ...who, profile: s.profile };
    s.standing.who = asSession;
    return (s.transport as SseSessionTransport).handlePost(
      req,
      this.#gateway.config.gateway.maxBatch,
      authInfoOf(callerOf(this.#gateway, () => s.id, asSession)),
    );
  }

  /**
   * Closes sessions idle for longer than `idleMs` — none while a request is being handled or a
   * response stream is open; returns how many.
   */
  expireIdle(idleMs: number): number {
    const cutoff = Date.now() - idleMs;
    let n = 0;
    for (const s of [...this.#sessions.values()]) {
      if (isIdle(s.activity, cutoff)) {
        n++;
        void s.server.close().catch(() => {});
        this.#sessions.delete(s.id);
      }
    }
    return n;
  }

  /**
   * After a reload: closes the sessions of every token the new config no longer lists or lists
   * with another value (rotated: the old secret must not keep an open stream); their next request
   * with the old value gets 401. Identities that were never in the token list are left alone.
   * Sessions of a profile the reload removed, or that their token may no longer use, are closed
   * too (a narrowed profile re-scopes its sessions instead: `./rescope.ts`).
   */
  #closeRemoved(prev: GatewayConfig, next: GatewayConfig): void {
    for (const s of [...this.#sessions.values()]) {
      const why = closeReason(prev, next, s);
      if (why === null) continue;
      this.#sessions.delete(s.id);
      void s.server.close().catch(() => {});
      this.#gateway.log.info(`${why}; session closed`, {
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
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(all.map((s) => s.server.close().catch(() => {})));
  }
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

/**
 * A caller on a session, as `who`: a configured token's globs are read from the running config
 * at every check, an OAuth token's are its own.
 */
function callerOf(
  gateway: Gateway,
  sessionId: () => string | null,
  who: RequestIdentity,
): Caller {
  return liveCaller(() => gateway.config, sessionId, who);
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}
