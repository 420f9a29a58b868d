/**
 * `POST|GET|DELETE /mcp` for 2025 sessions (streamable HTTP): a request on an open session goes
 * to its fast path when it is a plain `tools/call` or `tools/list` POST (`./fast-call.ts`,
 * `./fast-list.ts`) — or `notifications/initialized` (`./fast-open.ts`), a GET to the event
 * stream the session writes itself (`./get-stream.ts`), else to the session's SDK transport and
 * server, built for it if the session is lean (`./streamable-session.ts`); an `initialize`
 * without a session opens one. With `gateway.streamAnswers` on, every POST goes to the SDK
 * transport, which answers it as an event stream (a priming event, each event stored in the
 * session's replay store, resumable with GET + `Last-Event-ID`), and the session is lean again
 * once the answer is out.
 */
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { callerOf, type RequestIdentity } from "../door.ts";
import { readJson } from "../../shared/lazy-json.ts";
import { batchRefusal } from "./batch.ts";
import { REPLAY_MAX_BYTES } from "./event-store.ts";
import { cancelledId, isFastCall } from "./fast-call.ts";
import { fastList, isFastList } from "./fast-list.ts";
import { isFastInitialized, isFastOpen, openAnswer } from "./fast-open.ts";
import { sessionCapabilities } from "./server.ts";
import { authInfoOf } from "../caller-auth.ts";
import { type SessionTable, shareRefusal, streamGuard } from "./session-table.ts";
import { isStreamable, StreamableSession } from "./streamable-session.ts";
import { jsonError } from "./sse.ts";

/** Handles `POST|GET|DELETE /mcp` as `who`. */
export async function handleMcp(
  table: SessionTable,
  req: Request,
  who: RequestIdentity,
): Promise<Response> {
  const sid = req.headers.get("mcp-session-id");
  let s: StreamableSession | undefined;
  if (sid) {
    const found = table.sessions.get(sid);
    if (!isStreamable(found)) return jsonError(404, -32001, "Session not found");
    s = found;
    if (s.tokenName !== who.tokenName) {
      return jsonError(403, -32003, "Session belongs to another token");
    }
    if (s.profile !== (who.profile ?? null)) {
      return jsonError(404, -32001, "Session not found on this endpoint");
    }
    s.activity.lastSeen = Date.now();
    s.standing.who = who;
    if (req.method !== "POST") return await onSession(table, s, req, who);
  } else if (req.method !== "POST") {
    return jsonError(400, -32000, "Bad Request: missing Mcp-Session-Id header");
  }
  // A POST: its body is read here once, for the fast path, the batch cap and the transport.
  let body: unknown;
  try {
    body = await readJson(req);
  } catch {
    return jsonError(400, -32700, "Parse error: the body is not JSON");
  }
  const refused = batchRefusal(body, table.gateway.config.gateway.maxBatch);
  if (refused) return refused;
  return await (s ? postOnSession(table, s, req, body, who) : initialize(table, req, body, who));
}

/** A GET (the session's event stream) or DELETE (the SDK transport's) on session `s`. */
async function onSession(
  table: SessionTable,
  s: StreamableSession,
  req: Request,
  who: RequestIdentity,
): Promise<Response> {
  const authInfo = authInfoOf(callerOf(table.gateway, who, () => s.id));
  if (req.method !== "GET") return await s.handle(req, { authInfo });
  // A resumed stream starts with its whole replay, written at once (the SDK does not wait
  // for the client): the replay store's own bound is room it gets on top of the buffer.
  const replay = req.headers.has("last-event-id") ? REPLAY_MAX_BYTES : 0;
  return await s.openStream(req, { authInfo }, streamGuard(table, "get", who, replay));
}

/** A POST on session `s`, its `body` read: the fast path's when it can take it. */
function postOnSession(
  table: SessionTable,
  s: StreamableSession,
  req: Request,
  body: unknown,
  who: RequestIdentity,
): Promise<Response> {
  const gateway = table.gateway;
  const fast = s.fast;
  const caller = fast.callerOf(gateway, who, s);
  // A call still on the fast path (the option turned on by a reload meanwhile) is cancelled there.
  if (fast.cancel(cancelledId(body))) return Promise.resolve(new Response(null, { status: 202 }));
  // Event-stream answers: the SDK transport writes them (priming event, stored, resumable).
  if (gateway.config.gateway.streamAnswers) {
    return s.handle(req, { parsedBody: body, authInfo: authInfoOf(caller) });
  }
  if (isFastCall(req, body)) {
    const link = s.link;
    gateway.passthrough.touch(link);
    return fast.run(body, {
      gateway,
      caller,
      link,
      sessionId: s.id,
      activity: s.activity,
      request: req,
    });
  }
  if (isFastInitialized(req, body)) {
    gateway.passthrough.touch(s.link);
    return Promise.resolve(new Response(null, { status: 202 }));
  }
  if (isFastList(req, body)) {
    const { pageSize } = table.opts;
    const capabilities = s.link.capabilities;
    return Promise.resolve(
      fastList(body, { gateway, caller, capabilities, sessionId: s.id, pageSize }),
    );
  }
  return s.handle(req, { parsedBody: body, authInfo: authInfoOf(caller) });
}

/**
 * A POST without a session: an `initialize` opens one — lean when the fast path takes it
 * (`./fast-open.ts`), else through the SDK transport — and anything else is refused.
 */
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
  const s = new StreamableSession(table, who);
  // What a server built later is told the client declared (validated by isInitializeRequest).
  s.introduce(first.params);
  if (!table.gateway.config.gateway.streamAnswers && isFastOpen(req, body)) {
    s.openLean();
    return new Response(openAnswer(body, sessionCapabilities(table.gateway)), {
      headers: { "mcp-session-id": s.id, "content-type": "application/json" },
    });
  }
  const authInfo = authInfoOf(callerOf(table.gateway, who, () => s.id));
  const response = await s.handle(req, { parsedBody: body, authInfo });
  // Refused by the transport (headers, a second message): nothing was opened, nothing is kept.
  if (!s.opened) void s.close().catch(() => {});
  return response;
}
