/**
 * `POST|GET|DELETE /mcp` for 2025 sessions (streamable HTTP): a request on an open session goes
 * to its transport — a plain `tools/call` or `tools/list` POST to its fast path (`./fast-call.ts`,
 * `./fast-list.ts`) — and an `initialize` without a session opens one, connected to its own
 * session server.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { callerOf, type RequestIdentity } from "../door.ts";
import { newActivity, trackStream } from "./activity.ts";
import { batchRefusal } from "./batch.ts";
import { REPLAY_MAX_BYTES } from "./event-store.ts";
import { cancelledId, FastCalls, isFastCall } from "./fast-call.ts";
import { fastList, isFastList } from "./fast-list.ts";
import { authInfoOf } from "../caller-auth.ts";
import { SessionTransport } from "./session-transport.ts";
import {
  type Session,
  sessionServer,
  type SessionTable,
  shareRefusal,
  streamGuard,
} from "./session-table.ts";
import { jsonError } from "./sse.ts";

/** Handles `POST|GET|DELETE /mcp` as `who`. */
export async function handleMcp(
  table: SessionTable,
  req: Request,
  who: RequestIdentity,
): Promise<Response> {
  const sid = req.headers.get("mcp-session-id");
  let s: Session | undefined;
  if (sid) {
    s = table.sessions.get(sid);
    if (!s || s.kind !== "streamable-http") return jsonError(404, -32001, "Session not found");
    if (s.tokenName !== who.tokenName) {
      return jsonError(403, -32003, "Session belongs to another token");
    }
    if (s.profile !== (who.profile ?? null)) {
      return jsonError(404, -32001, "Session not found on this endpoint");
    }
    s.activity.lastSeen = Date.now();
    s.standing.who = who;
    if (req.method !== "POST" || !s.fast) return await onSession(table, s, req, who);
  } else if (req.method !== "POST") {
    return jsonError(400, -32000, "Bad Request: missing Mcp-Session-Id header");
  }
  // A POST: its body is read here once, for the fast path, the batch cap and the transport.
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return jsonError(400, -32700, "Parse error: the body is not JSON");
  }
  const refused = batchRefusal(body, table.gateway.config.gateway.maxBatch);
  if (refused) return refused;
  return await (s ? postOnSession(table, s, req, body, who) : initialize(table, req, body, who));
}

/** A GET (event stream) or DELETE on session `s`: the SDK transport's. */
async function onSession(
  table: SessionTable,
  s: Session,
  req: Request,
  who: RequestIdentity,
): Promise<Response> {
  const authInfo = authInfoOf(callerOf(table.gateway, who, () => s.id));
  const transport = s.transport as WebStandardStreamableHTTPServerTransport;
  const response = await transport.handleRequest(req, { authInfo });
  // A GET is a stream held open for server messages; POST answers are counted per request.
  if (req.method !== "GET") return response;
  // A resumed stream starts with its whole replay, written at once (the SDK does not wait
  // for the client): the replay store's own bound is room it gets on top of the buffer.
  const replay = req.headers.has("last-event-id") ? REPLAY_MAX_BYTES : 0;
  return trackStream(s.activity, response, streamGuard(table, "get", who, replay));
}

/** A POST on session `s`, its `body` read: the fast path's when it can take it. */
function postOnSession(
  table: SessionTable,
  s: Session,
  req: Request,
  body: unknown,
  who: RequestIdentity,
): Promise<Response> {
  const gateway = table.gateway;
  const fast = s.fast!;
  const caller = fast.callerOf(gateway, who, s);
  if (isFastCall(req, body)) {
    const link = s.link;
    gateway.passthrough.touch(link);
    return fast.run(body, {
      gateway,
      caller,
      link,
      sessionId: s.id,
      activity: s.activity,
      signal: req.signal,
    });
  }
  if (fast.cancel(cancelledId(body))) return Promise.resolve(new Response(null, { status: 202 }));
  if (isFastList(req, body)) {
    const { pageSize } = table.opts;
    const capabilities = s.link.capabilities;
    return Promise.resolve(
      fastList(body, { gateway, caller, capabilities, sessionId: s.id, pageSize }),
    );
  }
  const transport = s.transport as WebStandardStreamableHTTPServerTransport;
  return transport.handleRequest(req, { parsedBody: body, authInfo: authInfoOf(caller) });
}

/** A POST without a session: an `initialize` opens one, anything else is refused. */
async function initialize(
  table: SessionTable,
  req: Request,
  body: unknown,
  who: RequestIdentity,
): Promise<Response> {
  const first = Array.isArray(body) ? body[0] : body;
  if (!isInitializeRequest(first)) {
    return jsonError(
      400,
      -32000,
      "Bad Request: no session; the first request must be initialize",
    );
  }
  const share = shareRefusal(table, who);
  if (share) return share;
  const { server, transport, wire } = newSession(table, who);
  await server.connect(wire);
  const sessionId = () => transport.sessionId ?? null;
  const authInfo = authInfoOf(callerOf(table.gateway, who, sessionId));
  return await transport.handleRequest(req, { parsedBody: body, authInfo });
}

/**
 * A new session's server, transport and the decorator between them, not yet connected. Built
 * outside the async handler on purpose: the closures a session keeps for its whole life would
 * otherwise hold the handler's scope — its `initialize` request and body — as long as it lives.
 */
function newSession(table: SessionTable, who: RequestIdentity) {
  const { gateway, opts } = table;
  const activity = newActivity();
  const fast = new FastCalls();
  const standing = { who };
  const owner = crypto.randomUUID();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    // Replay stays within this session: its events are stored under an owner of its own.
    eventStore: table.events.scoped(owner),
    maxRequestBodySize: opts.maxBodyBytes,
    onsessioninitialized: (id) => {
      table.sessions.set(id, {
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
      gateway.log.debug("session opened", {
        kind: "streamable-http",
        tokenName: who.tokenName,
        profile: who.profile ?? null,
      });
    },
    onsessionclosed: (id) => void table.sessions.delete(id),
  });
  const sessionId = () => transport.sessionId ?? null;
  const { server, link } = sessionServer(
    table,
    sessionId,
    standing,
    opts.pageSize === undefined ? {} : { pageSize: opts.pageSize },
  );
  const wire = new SessionTransport(transport, activity, fast.route);
  wire.onclose = () => {
    fast.abortAll();
    table.events.forget(owner);
    if (transport.sessionId) table.sessions.delete(transport.sessionId);
  };
  return { server, transport, wire };
}
