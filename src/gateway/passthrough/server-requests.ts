/**
 * Server-to-client requests: `sampling/createMessage`, `elicitation/create` and `roots/list`.
 * Each goes to exactly one client session that is sure to be the right one, or is refused at
 * once with a JSON-RPC error; it is never guessed. A request about a task a client follows
 * (the 2025 related-task `_meta`, e.g. what a task queues for its `tasks/result`) goes to that
 * task's follower, whichever process sent it. A session-isolated process belongs to one
 * session, so its requests go there. On a 2025 streamable HTTP connection (a shared server's, a
 * user's own, a dual-era server's 2025 side) a request that came on a call's own POST stream is
 * that call's, however many sessions share the connection (upstream/stream-calls.ts). Otherwise
 * a shared process's sampling and elicitation go to the session whose call is in flight on it,
 * and are refused when calls of several sessions are (stdio carries no request relation, so the
 * request is ambiguous); a user's own connection is attributed the same way, among that user's
 * calls on it only.
 * `roots/list` from a shared process is answered from the config (`roots:`), never by a client:
 * a client's roots would otherwise decide what the process grants every other session.
 */
import {
  answerClientRequests,
  type ClientRequestExtra as Extra,
  type UpstreamClient,
  UserKey,
} from "../../upstream/mod.ts";
import { type ProtocolRequest as Request, RELATED_TASK_META } from "../../shared/protocol.ts";
import { GatewayError, onWire } from "../../shared/errors.ts";
import type { Upstream } from "../../upstream/mod.ts";
import type { CallContext, ClientChannel } from "../types.ts";
import type { PassthroughHub } from "./hub.ts";
import { cancellationOf } from "../../shared/call-context.ts";

export { missingCapability } from "./capabilities.ts";

/**
 * Installs the three relays on an upstream client; `owner` is set for a client's own process
 * (the {@link ClientChannel} that keys it: a 2025 session's, a 2026-07-28 request flow's), or
 * for one user's own connection of a per-user server (a {@link UserKey}).
 */
export function registerServerRequests(
  hub: PassthroughHub,
  upstream: Upstream,
  client: UpstreamClient,
  owner?: ClientChannel | UserKey,
): void {
  // Without `roots:` the capability is not offered (nor is roots/list handled).
  answerClientRequests(client, (req, extra) => relay(hub, upstream, owner, req, extra), {
    roots: upstream.config.roots !== null,
  });
}

/**
 * Answers one input round of a 2026-07-28 upstream's call: it belongs to exactly that call, so
 * it goes to that call's client (a 2025 session's ordinary request, or a 2026-07-28 client's own
 * round) — never attributed among the calls in flight. `own`: the call runs on its session's own
 * process of an `isolation: session` server, whose `roots: client` are that session's to give.
 */
export function answerRound(
  hub: PassthroughHub,
  upstream: Upstream,
  call: CallContext,
  method: string,
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
  own = false,
): Promise<unknown> {
  const req = { method, ...(params ? { params } : {}) } as Request;
  return relay(hub, upstream, undefined, req, { signal }, call, own);
}

/** Answers one upstream request itself, or sends it to its one client and returns the answer. */
function relay(
  hub: PassthroughHub,
  upstream: Upstream,
  owner: ClientChannel | UserKey | undefined,
  req: Request,
  extra: Extra,
  chosen?: CallContext,
  own = false,
) {
  return onWire(async () => {
    const roots = upstream.config.roots;
    if (req.method === "roots/list") {
      if (Array.isArray(roots)) return { roots: roots.map((r) => ({ ...r })) };
      // The shared instance of a `roots: client` server serves no session: it gets no roots.
      if (roots === "client" && !owner && !own) return { roots: [] };
    }
    // A request about a followed task (the 2025 related-task `_meta`) goes to its follower.
    const related = (req.params?._meta as Record<string, { taskId?: unknown }> | undefined)
      ?.[RELATED_TASK_META]?.taskId;
    const follower = hub.calls.taskFollower(upstream, related);
    if (follower) return await follower.request(req.method, req.params);
    if (chosen && !chosen.client) {
      throw refusal(upstream, req, "the call has no client behind it to answer");
    }
    // A client's own process asks its client, on the stream of its latest call there.
    const channel = owner instanceof UserKey ? undefined : owner;
    const call = chosen ?? streamCall(upstream, req, extra) ??
      (channel ? hub.calls.latestCallOf(upstream.name, channel) : attributedCall(
        upstream,
        req,
        owner ? hub.calls.callsOnConnection(upstream) : sharedCalls(hub, upstream, req),
      ));
    const client = call?.client ?? channel!;
    return await client.request(req.method, req.params, {
      server: upstream.name,
      signal: extra.signal,
      timeoutMs: upstream.config.timeoutMs,
      relatedRequestId: call?.requestId,
    });
  });
}

/**
 * The call whose own stream carried the request, on a 2025 streamable HTTP connection
 * (upstream/stream-calls.ts): exactly that call's, however many sessions share the connection.
 */
function streamCall(upstream: Upstream, req: Request, extra: Extra): CallContext | undefined {
  const call = upstream.streams?.take(extra.requestId);
  if (call === "ambiguous") {
    throw refusal(upstream, req, "the streams of two calls carried the same request id", {
      reason: "ambiguous",
    });
  }
  if (call && (call.client?.closed || cancellationOf(call)?.aborted)) {
    throw refusal(upstream, req, "the call it belongs to was cancelled or its session closed");
  }
  return call;
}

/** The calls in flight on a shared process (one of an isolated server's serves no session). */
function sharedCalls(hub: PassthroughHub, upstream: Upstream, req: Request): CallContext[] {
  if (upstream.config.isolation === "session") {
    throw refusal(
      upstream,
      req,
      `server "${upstream.name}" runs one process per session; its shared instance serves ` +
        "no session",
    );
  }
  return hub.calls.callsOn(upstream.name, upstream);
}

/**
 * The call a process's sampling or elicitation belongs to, among the `calls` in flight on it:
 * the latest live one, provided every call there (cancelled ones included) comes from one
 * session.
 */
function attributedCall(upstream: Upstream, req: Request, calls: CallContext[]): CallContext {
  // One client per channel: a 2025 session, or one 2026-07-28 client's parked call.
  const sessions = new Set(calls.map((c) => c.client));
  if (sessions.size === 0) {
    throw refusal(upstream, req, "it arrived outside any tool call of this server");
  }
  if (sessions.size > 1) {
    // A user's own connection cannot be split further; a shared stdio server's process can.
    const shared = upstream.config.kind === "stdio";
    throw refusal(
      upstream,
      req,
      `calls of ${sessions.size} sessions are in flight on this ${
        shared ? "shared server" : "connection"
      }, so the request cannot be attributed to one of them` +
        (shared ? ` (set servers.${upstream.name}.isolation: session)` : ""),
      { reason: "ambiguous", sessions: sessions.size },
    );
  }
  for (let i = calls.length - 1; i >= 0; i--) {
    const call = calls[i]!;
    if (!call.client!.closed && !cancellationOf(call)?.aborted) return call;
  }
  throw refusal(upstream, req, "the call it belongs to was cancelled or its session closed");
}

function refusal(
  upstream: Upstream,
  req: Request,
  why: string,
  data: Record<string, unknown> = {},
): GatewayError {
  return new GatewayError(
    "UNSUPPORTED",
    `no client session can answer ${req.method} from server "${upstream.name}": ${why}`,
    { data: { server: upstream.name, method: req.method, ...data } },
  );
}
